/* The pseudo-terminal of a rank's stdout; see run.h. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* The slave end of master, opened without making it anyone's controlling
 * terminal (tern-run may be a session leader without one: started by ssh
 * or setsid). */
static int pty_slave(int master)
{
    char name[128];
#ifdef TIOCGPTPEER
    /* no path lookup: the right devpts instance even in a container */
    int  fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);

    if (fd >= 0 || (errno != EINVAL && errno != ENOTTY)) {
        return fd;
    }
#endif
    if (ptsname_r(master, name, sizeof(name)) != 0) {
        return -1;
    }
    return open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

int tn_run_pty_open(int *master_p, int *slave_p)
{
    struct termios tio;
    struct winsize ws;
    int            master, slave, saved_errno;

    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) {
        return -1;
    }
    if (grantpt(master) != 0 || unlockpt(master) != 0) {
        goto err_master;
    }
    slave = pty_slave(master);
    if (slave < 0) {
        goto err_master;
    }
    /* raw: bytes pass as the rank wrote them ("\n" stays "\n"), nothing
     * echoes, no character makes a signal */
    if (tcgetattr(slave, &tio) != 0) {
        goto err_slave;
    }
    cfmakeraw(&tio);
    if (tcsetattr(slave, TCSANOW, &tio) != 0) {
        goto err_slave;
    }
    /* programs that format for the terminal see the user's */
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
        (void)ioctl(slave, TIOCSWINSZ, &ws);
    }
    *master_p = master;
    *slave_p  = slave;
    return 0;

err_slave:
    saved_errno = errno;
    close(slave);
    errno = saved_errno;
err_master:
    saved_errno = errno;
    close(master);
    errno = saved_errno;
    return -1;
}
