# mk/install.mk - `make install` and `make uninstall` (included by the
# Makefile, after the build rules it uses: BUILD, BINS, LIBA, LIBSO, HEADER,
# OMPSO).
#
#   make install   [PREFIX=/usr/local] [DESTDIR=/staging/root] [BUILD=build]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=/staging/root]
#
# What goes where (every directory can be set on the command line):
#
#   $(SBINDIR)         asteald
#   $(BINDIR)          asteal, asteal-sim, asteal-plot, asteal-profile
#                      (the programs this build makes: asteal once cli/ exists)
#   $(LIBDIR)          libasteal.a, libasteal.so.VERSION, and the symlinks
#                      libasteal.so.0 (the soname) and libasteal.so
#   $(OMP_LIBDIR)      libgomp.so.1, the OpenMP layer (client-lib/omp/),
#                      default $(LIBDIR)/asteal: a folder of its own, which
#                      asteal puts first in an OpenMP program's
#                      LD_LIBRARY_PATH and which ldconfig never reads (it
#                      is in no ld.so.conf), so the system's libgomp stays
#                      every other program's; asteal is built knowing it
#   $(INCLUDEDIR)      asteal.h
#   $(PKGCONFIGDIR)    asteal.pc, from client-lib/asteal.pc.in (less its
#                      '#' comment lines)
#   $(SYSTEMDUNITDIR)  asteald.service (from systemd/asteald.service.in, with
#                      ExecStart in $(SBINDIR)) and asteald.socket
#   $(SYSUSERSDIR)     asteal.conf (systemd/asteal.sysusers)
#   $(TMPFILESDIR)     asteal.conf (systemd/asteal.tmpfiles)
#   $(MANDIR)          man1/asteal.1, man8/asteald.8
#   $(BASHCOMPDIR)     asteal (completion/asteal.bash)
#
# DESTDIR is prepended to every path and never written into an installed
# file, so a staged tree (a package, a test) holds the final paths.  With no
# DESTDIR, as root, install refreshes the dynamic linker's cache.  The
# system user, the directories and systemd's view of the new units are the
# administrator's step (systemd/README.md), printed at the end when
# DESTDIR is empty.

PREFIX         ?= /usr/local
BINDIR         ?= $(PREFIX)/bin
SBINDIR        ?= $(PREFIX)/sbin
LIBDIR         ?= $(PREFIX)/lib
INCLUDEDIR     ?= $(PREFIX)/include
DATADIR        ?= $(PREFIX)/share
MANDIR         ?= $(DATADIR)/man
PKGCONFIGDIR   ?= $(LIBDIR)/pkgconfig
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR    ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR    ?= $(PREFIX)/lib/tmpfiles.d
OMP_LIBDIR     ?= $(LIBDIR)/asteal
BASHCOMPDIR    ?= $(DATADIR)/bash-completion/completions
INSTALL        ?= install

# The library's version is the header's ASTEAL_VERSION ("0.1.0").
ASTEAL_PKG_VERSION := $(shell sed -n 's/^.define ASTEAL_VERSION "\(.*\)"$$/\1/p' client-lib/asteal.h)
# asteal.pc names its directories from ${prefix} where they lie under it,
# so that pkg-config --define-variable=prefix=... moves them all.
PC_LIBDIR      = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR  = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

INSTALL_DAEMON = $(filter $(BUILD)/bin/asteald,$(BINS))
INSTALL_BINS   = $(filter-out $(BUILD)/bin/asteald,$(BINS))
# Everything uninstall removes, built here or not.
UNINSTALL_BINS = $(sort asteal asteal-sim $(notdir $(INSTALL_BINS)))
INSTALL_GEN    = $(BUILD)/install

.PHONY: install uninstall

install: all
	@test -n "$(ASTEAL_PKG_VERSION)" || { echo "install: no ASTEAL_VERSION in client-lib/asteal.h" >&2; exit 1; }
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(OMP_LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	$(if $(INSTALL_DAEMON),$(INSTALL) -m 0755 $(INSTALL_DAEMON) $(DESTDIR)$(SBINDIR)/)
	$(if $(INSTALL_BINS),$(INSTALL) -m 0755 $(INSTALL_BINS) $(DESTDIR)$(BINDIR)/)
	$(INSTALL) -m 0644 $(LIBA) $(DESTDIR)$(LIBDIR)/libasteal.a
	$(INSTALL) -m 0755 $(LIBSO).0 $(DESTDIR)$(LIBDIR)/libasteal.so.$(ASTEAL_PKG_VERSION)
	ln -sf libasteal.so.$(ASTEAL_PKG_VERSION) $(DESTDIR)$(LIBDIR)/libasteal.so.0
	ln -sf libasteal.so.0 $(DESTDIR)$(LIBDIR)/libasteal.so
	$(INSTALL) -m 0755 $(OMPSO) $(DESTDIR)$(OMP_LIBDIR)/libgomp.so.1
	$(INSTALL) -m 0644 $(HEADER) $(DESTDIR)$(INCLUDEDIR)/asteal.h
	@mkdir -p $(INSTALL_GEN)
	sed -e '/^#/d' -e 's|@prefix@|$(PREFIX)|g' -e 's|@libdir@|$(PC_LIBDIR)|g' \
		-e 's|@includedir@|$(PC_INCLUDEDIR)|g' -e 's|@version@|$(ASTEAL_PKG_VERSION)|g' \
		client-lib/asteal.pc.in >$(INSTALL_GEN)/asteal.pc
	$(INSTALL) -m 0644 $(INSTALL_GEN)/asteal.pc $(DESTDIR)$(PKGCONFIGDIR)/asteal.pc
	sed -e 's|@sbindir@|$(SBINDIR)|g' systemd/asteald.service.in >$(INSTALL_GEN)/asteald.service
	$(INSTALL) -m 0644 $(INSTALL_GEN)/asteald.service systemd/asteald.socket $(DESTDIR)$(SYSTEMDUNITDIR)/
	$(INSTALL) -m 0644 systemd/asteal.sysusers $(DESTDIR)$(SYSUSERSDIR)/asteal.conf
	$(INSTALL) -m 0644 systemd/asteal.tmpfiles $(DESTDIR)$(TMPFILESDIR)/asteal.conf
	$(INSTALL) -m 0644 man/asteal.1 $(DESTDIR)$(MANDIR)/man1/asteal.1
	$(INSTALL) -m 0644 man/asteald.8 $(DESTDIR)$(MANDIR)/man8/asteald.8
	$(INSTALL) -m 0644 completion/asteal.bash $(DESTDIR)$(BASHCOMPDIR)/asteal
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null; then \
		echo ldconfig; ldconfig; fi
	@if [ -z "$(DESTDIR)" ]; then \
		echo "install: for the service: systemd-sysusers asteal.conf; systemd-tmpfiles --create asteal.conf;"; \
		echo "install: systemctl daemon-reload; systemctl enable --now asteald.socket (systemd/README.md)"; fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(UNINSTALL_BINS)) \
		$(DESTDIR)$(SBINDIR)/asteald \
		$(DESTDIR)$(LIBDIR)/libasteal.a $(DESTDIR)$(LIBDIR)/libasteal.so \
		$(DESTDIR)$(LIBDIR)/libasteal.so.0 $(DESTDIR)$(LIBDIR)/libasteal.so.$(ASTEAL_PKG_VERSION) \
		$(DESTDIR)$(INCLUDEDIR)/asteal.h $(DESTDIR)$(PKGCONFIGDIR)/asteal.pc \
		$(DESTDIR)$(SYSTEMDUNITDIR)/asteald.service $(DESTDIR)$(SYSTEMDUNITDIR)/asteald.socket \
		$(DESTDIR)$(SYSUSERSDIR)/asteal.conf $(DESTDIR)$(TMPFILESDIR)/asteal.conf \
		$(DESTDIR)$(MANDIR)/man1/asteal.1 $(DESTDIR)$(MANDIR)/man8/asteald.8 \
		$(DESTDIR)$(BASHCOMPDIR)/asteal $(DESTDIR)$(OMP_LIBDIR)/libgomp.so.1
	rmdir $(DESTDIR)$(OMP_LIBDIR) 2>/dev/null || true
