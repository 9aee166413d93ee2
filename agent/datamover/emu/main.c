// Licensed under the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License. You may obtain
// a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.

/*
 *
 * nova-fpga-sgemu: one region's emulated AXI DMA (scatter-gather, PG021) with
 * a loopback module, as a process beside the mover.
 *
 *   nova-fpga-sgemu --regs /dev/shm/R-regs --buf /dev/shm/R-buf --size BYTES
 *                   --phys ADDR --irq /dev/shm/R-irq [--length-width BITS]
 *                   [--idle-sleep-us US] [--max-sleep-us US]
 *                   [--module loopback|vtc --module-lib LIBREGION.so
 *                    [--axil ADDR=VALUE]...]
 *
 * It creates the register window (64 KiB, reset values published) and the DMA
 * buffer as files, then the interrupt node: a Unix SOCK_SEQPACKET socket that
 * answers like /dev/uioN — each interrupt sends the 4-byte total count to the
 * connected reader (its read() returns it), and a 4-byte write of 1 (0)
 * unmasks (masks) the interrupt, which is masked from the moment it fires, as
 * uio_pdrv_genirq does.  The socket appears last: its existence means ready.
 * It removes all three on SIGTERM/SIGINT.
 *
 * It polls the window for the mover's stores (it cannot trap them) while
 * there is work; when a look finds none it sleeps on its sockets, woken by
 * the mover's doorbell (pg021.h, SGEMU_ASLEEP_OFF) or after --max-sleep-us.
 *
 * Without --module the module behind the DMA is a loopback FIFO.  With it,
 * each MM2S packet goes to the Verilated module (the repo's Verilator bridge,
 * module.h: --module-lib is the libregion.so hdl_bridge.py built for that
 * module in its slot) and each frame the module sends is written to the next
 * S2MM descriptors; --axil writes the module's registers (AXI4-Lite) before
 * the DMA starts, as the agent would (e.g. the vTC's POLICY entries).  The
 * simulated cycles and frame counts are published at SGEMU_STATS_OFF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "module.h"
#include "sgemu.h"

#define MAX_READERS 4

static volatile sig_atomic_t stopping;
static int readers[MAX_READERS] = { -1, -1, -1, -1 };

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *map_new(const char *path, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		fprintf(stderr, "nova-fpga-sgemu: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "nova-fpga-sgemu: mmap %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return p;
}

static void fire(void *ctx, uint32_t count)
{
	(void)ctx;
	for (int i = 0; i < MAX_READERS; i++)
		if (readers[i] >= 0 &&
		    send(readers[i], &count, sizeof(count), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
		    errno != EAGAIN) {
			close(readers[i]);
			readers[i] = -1;
		}
}

static void service_sockets(int lfd, struct sgemu *e)
{
	int fd;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		int k;
		for (k = 0; k < MAX_READERS && readers[k] >= 0; k++)
			;
		if (k == MAX_READERS)
			close(fd);
		else
			readers[k] = fd;
	}
	for (int i = 0; i < MAX_READERS; i++) {
		if (readers[i] < 0)
			continue;
		for (;;) {
			uint32_t v;
			ssize_t n = recv(readers[i], &v, sizeof(v), MSG_DONTWAIT);
			if (n == (ssize_t)sizeof(v)) {
				/* UIO write(), or the mover's doorbell (a wake-up) */
				if (v != SGEMU_DOORBELL)
					sgemu_irqcontrol(e, v);
				continue;
			}
			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				close(readers[i]);
				readers[i] = -1;
			}
			break;
		}
	}
}

int main(int argc, char **argv)
{
	const char *regs = NULL, *buf = NULL, *irq = NULL;
	size_t size = 0;
	uint64_t phys = 0;
	unsigned lw = PG021_DEFAULT_LENGTH_WIDTH, max_sleep_us = 1000, idle_sleep_us = 0;
	unsigned long long sleeps = 0;
	const char *module = NULL, *module_lib = NULL;
	const char *axil[64];
	int naxil = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "--module"))
			module = v;
		else if (!strcmp(a, "--module-lib"))
			module_lib = v;
		else if (!strcmp(a, "--axil") && naxil < 64)
			axil[naxil++] = v;
		else if (!strcmp(a, "--regs"))
			regs = v;
		else if (!strcmp(a, "--buf"))
			buf = v;
		else if (!strcmp(a, "--irq"))
			irq = v;
		else if (!strcmp(a, "--size"))
			size = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--phys"))
			phys = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--length-width"))
			lw = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--idle-sleep-us"))
			idle_sleep_us = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--max-sleep-us"))
			max_sleep_us = (unsigned)strtoul(v, NULL, 0);
	}
	if (!regs || !buf || !irq || !size) {
		fprintf(stderr, "usage: nova-fpga-sgemu --regs FILE --buf FILE --size BYTES "
			"--phys ADDR --irq SOCKET [--length-width BITS] [--idle-sleep-us US]\n"
			"       [--max-sleep-us US] [--module loopback|vtc --module-lib FILE\n"
			"       [--axil ADDR=VALUE]...]\n");
		return 2;
	}
	if (module && (!module_lib || (strcmp(module, "loopback") && strcmp(module, "vtc")))) {
		fprintf(stderr, "nova-fpga-sgemu: --module loopback|vtc needs --module-lib\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	volatile uint32_t *win = map_new(regs, PG021_WINDOW_BYTES);
	uint8_t *mem = map_new(buf, size);
	static struct sgemu e;
	if (sgemu_init(&e, win, mem, phys, size, lw)) {
		fprintf(stderr, "nova-fpga-sgemu: bad parameters\n");
		return 2;
	}
	e.irq_fire = fire;

	static struct emu_module mops;
	struct vmod *vm = NULL;
	volatile uint64_t *stats = (volatile uint64_t *)&win[SGEMU_STATS_OFF / 4];
	if (module) {
		char err[512];
		vm = vmod_open(module_lib, &mops, err, sizeof(err));
		if (!vm) {
			fprintf(stderr, "nova-fpga-sgemu: %s: %s\n", module, err);
			return 1;
		}
		for (int i = 0; i < naxil; i++) {
			char *eq;
			unsigned long addr = strtoul(axil[i], &eq, 0);
			if (*eq != '=') {
				fprintf(stderr, "nova-fpga-sgemu: --axil %s: ADDR=VALUE\n", axil[i]);
				return 2;
			}
			int resp = vmod_axil_write(vm, (uint32_t)addr,
						   (uint32_t)strtoul(eq + 1, NULL, 0));
			if (resp) {
				fprintf(stderr, "nova-fpga-sgemu: --axil %s: response %d\n",
					axil[i], resp);
				return 1;
			}
		}
		if (sgemu_set_module(&e, &mops)) {
			fprintf(stderr, "nova-fpga-sgemu: out of memory\n");
			return 1;
		}
	}

	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(irq) >= sizeof(a.sun_path))
		return 2;
	strcpy(a.sun_path, irq);
	unlink(irq);
	int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4)) {
		fprintf(stderr, "nova-fpga-sgemu: %s: %s\n", irq, strerror(errno));
		return 1;
	}

	/* Idle policy: the engine shares the host's CPUs with the mover and
	 * the traffic generator, so it never spins.  While passes find work it
	 * goes on at once (a batch of up to EMU_BATCH descriptors a channel a
	 * pass); when one finds none it says it sleeps (SGEMU_ASLEEP_OFF, read
	 * by the mover after its TAILDESC stores), looks once more, and sleeps
	 * on its sockets until the mover's doorbell, an interrupt re-arm, or
	 * --max-sleep-us (the IRQDelay timer and a mover that rings no bell).
	 * --idle-sleep-us: wait that long before sleeping, polling with
	 * sched_yield (0: sleep at once). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	volatile uint32_t *asleep = &win[SGEMU_ASLEEP_OFF / 4];
	unsigned long steps = 0;
	uint64_t idle_since = 0;
	while (!stopping) {
		int w = sgemu_step(&e);
		steps++;
		if (vm && w) {
			uint64_t fin, fout;
			vmod_counts(vm, &fin, &fout);
			__atomic_store_n(&stats[0], vmod_cycles(vm), __ATOMIC_RELAXED);
			__atomic_store_n(&stats[1], fin, __ATOMIC_RELAXED);
			__atomic_store_n(&stats[2], fout, __ATOMIC_RELAXED);
		}
		if (w) {
			idle_since = 0;
			if ((steps & 63) == 0)
				service_sockets(lfd, &e);
			continue;
		}
		service_sockets(lfd, &e);
		if (idle_sleep_us) {
			uint64_t t = mono_ns();
			if (!idle_since)
				idle_since = t;
			if (t - idle_since < (uint64_t)idle_sleep_us * 1000u) {
				sched_yield();
				continue;
			}
		}
		__atomic_store_n(asleep, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (sgemu_step(&e)) {
			__atomic_store_n(asleep, 0, __ATOMIC_RELAXED);
			idle_since = 0;
			continue;
		}
		struct pollfd pf[1 + MAX_READERS];
		int n = 0;
		pf[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < MAX_READERS; i++)
			if (readers[i] >= 0)
				pf[n++] = (struct pollfd){ .fd = readers[i], .events = POLLIN };
		struct timespec ts = { (time_t)(max_sleep_us / 1000000u),
				       (long)(max_sleep_us % 1000000u) * 1000 };
		ppoll(pf, (nfds_t)n, &ts, NULL);
		__atomic_store_n(asleep, 0, __ATOMIC_RELAXED);
		sleeps++;
		service_sockets(lfd, &e);
		idle_since = 0;
	}
	fprintf(stderr, "nova-fpga-sgemu: MM2S %llu descriptors %llu packets, S2MM %llu "
		"descriptors %llu packets, %u interrupts, %llu sleeps\n",
		(unsigned long long)e.ch[0].descs, (unsigned long long)e.ch[0].packets,
		(unsigned long long)e.ch[1].descs, (unsigned long long)e.ch[1].packets,
		e.irq_count, sleeps);
	if (vm) {
		uint64_t fin, fout;
		vmod_counts(vm, &fin, &fout);
		fprintf(stderr, "nova-fpga-sgemu: module %s: %llu frames in, %llu out, "
			"%llu cycles\n", module, (unsigned long long)fin,
			(unsigned long long)fout, (unsigned long long)vmod_cycles(vm));
		vmod_close(vm);
	}
	sgemu_free(&e);
	unlink(irq);
	unlink(regs);
	unlink(buf);
	return 0;
}
