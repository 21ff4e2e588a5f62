# slurm/slurm.mk - the SPANK plugin (slurm/asteal_spank.c), included by the
# Makefile.  It is built only where Slurm's header is (Debian's
# libslurm-dev: /usr/include/slurm/spank.h); elsewhere make says so in one
# line and goes on.  Built without the sanitizers (slurmstepd loads it, and
# a sanitizer's runtime must be the first library of a process), into
# $(BUILD)/lib/slurm/asteal_spank.so; make install puts it in
# $(LIBDIR)/slurm/ (the directory Slurm's own plugins are in when
# PREFIX=/usr).

SPANK_H   ?= /usr/include/slurm/spank.h
SPANK_SO   = $(BUILD)/lib/slurm/asteal_spank.so
SPANK_CFLAGS = -std=c11 $(OPT) -g $(WARN) -fPIC -shared

.PHONY: slurm-plugin install-slurm uninstall-slurm

ifneq ($(wildcard $(SPANK_H)),)
slurm-plugin: $(SPANK_SO)

$(SPANK_SO): slurm/asteal_spank.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(SPANK_CFLAGS) -o $@ $<

install-slurm: all
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/slurm
	$(INSTALL) -m 0755 $(SPANK_SO) $(DESTDIR)$(LIBDIR)/slurm/asteal_spank.so
else
slurm-plugin:
	@echo "slurm/: libslurm-dev not installed, SPANK plugin not built"

install-slurm: ;
endif

uninstall-slurm:
	rm -f $(DESTDIR)$(LIBDIR)/slurm/asteal_spank.so

all tests: slurm-plugin
install: install-slurm
uninstall: uninstall-slurm
