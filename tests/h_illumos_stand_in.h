/*
 * make lint's illumos compile check (tests/h_lint.sh): the sources are built
 * with __sun against glibc's headers.  These are the declarations illumos's
 * own headers give and glibc's do not.
 */
int issetugid(void);
