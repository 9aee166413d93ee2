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
 * The same socket carries the emulated fabric's commands (FABRIC_MAGIC
 * messages, below): load a module at run time, its registers, decoupler
 * and reset, for the board emulator, whose fabric outlives its agent.
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
/* connections that sent fabric commands: no interrupts for them (their
 * answers must not queue behind counts nobody reads) */
static int fabric_conn[MAX_READERS];

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
		if (readers[i] >= 0 && !fabric_conn[i] &&
		    send(readers[i], &count, sizeof(count), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
		    errno != EAGAIN) {
			close(readers[i]);
			readers[i] = -1;
		}
}

/* The emulated fabric's side of the region (the board emulator's
 * agent/emulator/nova_fpga_emulator/engine.py): on the interrupt socket, a
 * message longer than 4 bytes starting with FABRIC_MAGIC is a command of
 * the emulated programmable logic, answered by a struct fabric_ans.  The
 * module (--module, or FABRIC_LOAD at run time) lives here, beside its DMA,
 * so it outlives the agent as a board's fabric does. */
#define FABRIC_MAGIC 0x52424146u   /* "FABR" */
#define FABRIC_HDR 16
enum { FABRIC_LOAD = 1, FABRIC_AXIL_READ, FABRIC_AXIL_WRITE, FABRIC_DECOUPLE,
       FABRIC_RESET, FABRIC_STATUS };
struct fabric_req {
	uint32_t magic, op, addr, value;
	char path[4096];           /* FABRIC_LOAD: libregion.so ("": none) */
};
struct fabric_ans {
	uint32_t magic;
	int32_t status;            /* 0, an AXI response, -1 no answer/error */
	uint32_t value;
};

static struct vmod *vm;
static struct emu_module mops;
static char vm_path[4096];

static struct fabric_ans fabric_command(struct sgemu *e, const struct fabric_req *r, size_t n)
{
	struct fabric_ans a = { FABRIC_MAGIC, 0, 0 };
	switch (r->op) {
	case FABRIC_LOAD: {
		char path[sizeof(r->path) + 1];
		size_t len = n - FABRIC_HDR;
		memcpy(path, r->path, len);
		path[len] = 0;
		if (vm && !strcmp(path, vm_path)) {
			a.value = 1;       /* already there: the fabric kept it */
			vmod_set_quiet(vm, r->value);
			break;
		}
		sgemu_set_module(e, NULL);
		vmod_close(vm);
		vm = NULL;
		vm_path[0] = 0;
		if (!len)
			break;
		char err[512];
		vm = vmod_open(path, &mops, err, sizeof(err));
		if (!vm || sgemu_set_module(e, &mops)) {
			fprintf(stderr, "nova-fpga-sgemu: %s: %s\n", path, vm ? "out of memory" : err);
			vmod_close(vm);
			vm = NULL;
			a.status = -1;
			break;
		}
		/* value: the module's quiet cycles (0: the default) */
		vmod_set_quiet(vm, r->value);
		strcpy(vm_path, path);
		break;
	}
	case FABRIC_AXIL_READ:
		a.status = vm ? vmod_axil_read(vm, r->addr, &a.value) : -1;
		break;
	case FABRIC_AXIL_WRITE:
		a.status = vm ? vmod_axil_write(vm, r->addr, r->value) : -1;
		break;
	case FABRIC_DECOUPLE:
		if (vm)
			vmod_set_decoupled(vm, (int)r->value);
		break;
	case FABRIC_RESET:
		if (vm)
			vmod_reset(vm, 8, r->value);
		break;
	case FABRIC_STATUS:
		a.value = (vm ? 1u : 0u) | (vm && vmod_decoupled(vm) ? 2u : 0u);
		break;
	default:
		a.status = -1;
	}
	return a;
}

static void service_sockets(int lfd, struct sgemu *e)
{
	int fd;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		int k;
		for (k = 0; k < MAX_READERS && readers[k] >= 0; k++)
			;
		if (k == MAX_READERS) {
			close(fd);
		} else {
			readers[k] = fd;
			fabric_conn[k] = 0;
		}
	}
	for (int i = 0; i < MAX_READERS; i++) {
		if (readers[i] < 0)
			continue;
		for (;;) {
			union { uint32_t v; struct fabric_req f; } m;
			ssize_t n = recv(readers[i], &m, sizeof(m), MSG_DONTWAIT);
			if (n == (ssize_t)sizeof(m.v)) {
				/* UIO write(), or the mover's doorbell (a wake-up) */
				if (m.v != SGEMU_DOORBELL)
					sgemu_irqcontrol(e, m.v);
				continue;
			}
			if (n >= (ssize_t)FABRIC_HDR && m.f.magic == FABRIC_MAGIC) {
				fabric_conn[i] = 1;
				struct fabric_ans ans = fabric_command(e, &m.f, (size_t)n);
				send(readers[i], &ans, sizeof(ans), MSG_DONTWAIT | MSG_NOSIGNAL);
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
		snprintf(vm_path, sizeof(vm_path), "%s", module_lib);
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
			"%llu cycles\n", module ? module : vm_path, (unsigned long long)fin,
			(unsigned long long)fout, (unsigned long long)vmod_cycles(vm));
		vmod_close(vm);
	}
	sgemu_free(&e);
	unlink(irq);
	unlink(regs);
	unlink(buf);
	return 0;
}
