dnl ACCTAPI_CHECK_APXS: find apxs (--with-apxs=PATH), then ask it where httpd
dnl keeps its headers and modules.
AC_DEFUN([ACCTAPI_CHECK_APXS], [
  AC_ARG_WITH([apxs],
    [AS_HELP_STRING([--with-apxs=PATH], [path to apxs (default: search PATH)])],
    [APXS="$withval"], [APXS=""])
  AS_IF([test -z "$APXS"], [AC_PATH_PROGS([APXS], [apxs2 apxs], [],
                                          [$PATH:/usr/bin:/usr/sbin:/usr/local/apache2/bin])])
  AS_IF([test -z "$APXS" || test ! -x "$APXS"],
    [AC_MSG_ERROR([apxs not found: install apache2-dev or pass --with-apxs=PATH])])
  APXS_INCLUDEDIR=`$APXS -q INCLUDEDIR`
  APXS_LIBEXECDIR=`$APXS -q LIBEXECDIR`
  APXS_SBINDIR=`$APXS -q SBINDIR`
  APXS_TARGET=`$APXS -q TARGET`
  AS_IF([test ! -f "$APXS_INCLUDEDIR/httpd.h"],
    [AC_MSG_ERROR([httpd.h not found in $APXS_INCLUDEDIR (from $APXS)])])
  AC_SUBST([APXS])
  AC_SUBST([APXS_INCLUDEDIR])
  AC_SUBST([APXS_LIBEXECDIR])
  AC_SUBST([APXS_SBINDIR])
  AC_SUBST([APXS_TARGET])
])

dnl ACCTAPI_CHECK_APR: APR and APR-util flags, from the config scripts apxs names.
AC_DEFUN([ACCTAPI_CHECK_APR], [
  APR_CONFIG=`$APXS -q APR_CONFIG 2>/dev/null`
  APU_CONFIG=`$APXS -q APU_CONFIG 2>/dev/null`
  AS_IF([test -z "$APR_CONFIG"], [AC_PATH_PROG([APR_CONFIG], [apr-1-config])])
  AS_IF([test -z "$APU_CONFIG"], [AC_PATH_PROG([APU_CONFIG], [apu-1-config])])
  AS_IF([test -z "$APR_CONFIG" || test ! -x "$APR_CONFIG"],
    [AC_MSG_ERROR([apr-1-config not found: install libapr1-dev])])
  AS_IF([test -z "$APU_CONFIG" || test ! -x "$APU_CONFIG"],
    [AC_MSG_ERROR([apu-1-config not found: install libaprutil1-dev])])
  APR_CFLAGS="`$APR_CONFIG --cflags` `$APR_CONFIG --cppflags` `$APR_CONFIG --includes` `$APU_CONFIG --includes`"
  APR_LIBS="`$APU_CONFIG --link-ld` `$APR_CONFIG --link-ld`"
  save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $APR_CFLAGS"
  AC_CHECK_HEADER([apr_dbd.h], [],
    [AC_MSG_ERROR([apr_dbd.h not found: install libaprutil1-dev])])
  CPPFLAGS="$save_CPPFLAGS"
  AC_SUBST([APR_CONFIG])
  AC_SUBST([APU_CONFIG])
  AC_SUBST([APR_CFLAGS])
  AC_SUBST([APR_LIBS])
])
