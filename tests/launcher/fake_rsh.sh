#!/bin/sh
# A remote shell for tern-run's multi-host tests: "fake_rsh.sh HOST COMMAND"
# runs COMMAND on this machine through sh -c, as ssh runs it through the
# remote user's shell (so tern-run's quoting is exercised).  A host whose
# name starts with "refuse" fails the way ssh does when nothing listens.
host=$1
shift
case $host in
refuse*)
    echo "ssh: connect to host $host port 22: Connection refused" >&2
    exit 255
    ;;
esac
exec sh -c "$*"
