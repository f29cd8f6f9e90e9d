/* Tern's tools interface: what tern-info and other tools read from the
 * library without going through MPI.  Stable within a major version. */
#ifndef TERN_TOOLS_H
#define TERN_TOOLS_H

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0" */
const char *tern_tools_version(void);
/* Comma-separated list of the transports built in ("self,shm"). */
const char *tern_tools_transports(void);

/* Configuration variables (TERN_*), after reading the environment. */
int tern_tools_config_count(void);
/* Describe variable i: name, default and help (static strings), and its
 * current value formatted into value[len].  Returns 0, or -1 if i is out of
 * range.  *is_set tells whether the environment set it. */
int tern_tools_config_get(int i, const char **name, const char **type, const char **def,
                          const char **help, char *value, int len, int *is_set);

/* MPI functions of the standard ABI that are not implemented yet. */
int tern_tools_function_count(void);
int tern_tools_unsupported_count(void);
const char *tern_tools_unsupported_name(int i);

#ifdef __cplusplus
}
#endif

#endif
