/* A name that came from outside (a PMI job name) made safe to put in a
 * file name: every character outside [A-Za-z0-9_.-] becomes '_'. */
#ifndef TN_BASE_NAME_H
#define TN_BASE_NAME_H

static inline void tn_name_sanitize(char *s)
{
    for (; *s != '\0'; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-')) {
            *s = '_';
        }
    }
}

#endif
