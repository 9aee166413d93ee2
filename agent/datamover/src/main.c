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
 * nova-fpga-datamover: the board's data path.  Frames from the data interface
 * (AF_PACKET, TPACKET_V3 RX ring) are steered by their outer 802.1Q tag to a
 * region's AXI DMA (scatter-gather MM2S ring), the region's output (S2MM
 * ring) leaves tagged with the egress VLAN (TPACKET_V2 TX ring, one send()
 * per batch).  One thread, NAPI-style: it polls in batches while there is
 * work, and when a round finds none for --spin-us it acknowledges and re-arms
 * the regions' interrupts (UIO) and sleeps in epoll_wait on the packet
 * socket, the interrupts and the control socket.
 *
 * Usage: see usage() below and README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "mover.h"
#include "pktio.h"
#include "uio.h"

#define MAX_CLIENTS 8
#define CTL_OUT     65536

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "nova-fpga-datamover: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nova-fpga-datamover --interface IF --counters FILE --control SOCKET\n"
		"         --region NAME,regs=PATH,buf=PATH,phys=ADDR,size=BYTES[,irq=PATH]\n"
		"                  [,regs-size=BYTES][,ring=N][,slot=BYTES][,length-width=BITS]\n"
		"         [--region ...] [--route VLAN:REGION:EGRESS|-]... [--state FILE]\n"
		"         [--max-frame BYTES] [--spin-us US] [--stall-us US]\n"
		"         [--rx-ring v2|v3] [--rx-frames N] [--rx-frame-size BYTES]\n"
		"         [--rx-block-size BYTES] [--rx-blocks N] [--rx-tov-ms MS]\n"
		"         [--tx-frames N]\n"
		"         [--io packet|xdp] [--xdp-mode auto|native|generic] [--xdp-queue N]\n"
		"         [--xdp-frames N]\n");
}

struct region_arg {
	char name[DM_NAME_LEN];
	char regs[256], buf[256], irq[256];
	uint64_t phys;
	size_t size, regs_size;
	unsigned ring, slot, length_width;
};

static int parse_region(const char *s, struct region_arg *a)
{
	memset(a, 0, sizeof(*a));
	a->regs_size = PG021_WINDOW_BYTES;
	a->length_width = PG021_DEFAULT_LENGTH_WIDTH;
	char buf[1024], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", s);
	char *t = strtok_r(buf, ",", &save);
	if (!t)
		return -1;
	snprintf(a->name, sizeof(a->name), "%s", t);
	while ((t = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(t, '=');
		if (!eq)
			return -1;
		*eq++ = 0;
		if (!strcmp(t, "regs"))
			snprintf(a->regs, sizeof(a->regs), "%s", eq);
		else if (!strcmp(t, "buf"))
			snprintf(a->buf, sizeof(a->buf), "%s", eq);
		else if (!strcmp(t, "irq"))
			snprintf(a->irq, sizeof(a->irq), "%s", eq);
		else if (!strcmp(t, "phys"))
			a->phys = strtoull(eq, NULL, 0);
		else if (!strcmp(t, "size"))
			a->size = strtoull(eq, NULL, 0);
		else if (!strcmp(t, "regs-size"))
			a->regs_size = strtoull(eq, NULL, 0);
		else if (!strcmp(t, "ring"))
			a->ring = (unsigned)strtoul(eq, NULL, 0);
		else if (!strcmp(t, "slot"))
			a->slot = (unsigned)strtoul(eq, NULL, 0);
		else if (!strcmp(t, "length-width"))
			a->length_width = (unsigned)strtoul(eq, NULL, 0);
		else
			return -1;
	}
	return a->regs[0] && a->buf[0] && a->size ? 0 : -1;
}

struct client {
	int fd;
	size_t used;
	char in[512];
};

struct daemon {
	struct dm_mover m;
	struct pktio io;
	int epfd, listen_fd;
	struct client cl[MAX_CLIENTS];
	const char *state_path;
	char out[CTL_OUT];
};

static uint8_t *tx_alloc(void *ctx, uint32_t len)
{
	return pktio_tx_alloc(ctx, len);
}

static void tx_commit(void *ctx, uint32_t len)
{
	pktio_tx_commit(ctx, len);
}

static void tx_flush(void *ctx)
{
	pktio_tx_flush(ctx);
}

static const struct dm_tx_ops pktio_ops = { tx_alloc, tx_commit, tx_flush };

static int on_frame(void *ctx, const uint8_t *f, uint32_t len, int tci, uint32_t wire_len)
{
	return dm_ingress(ctx, f, len, tci, wire_len);
}

static void save_state(struct daemon *d)
{
	if (!d->state_path)
		return;
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->state_path);
	dm_control_dump_state(&d->m, d->out, sizeof(d->out));
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(d->out, f) < 0 || fclose(f) || rename(tmp, d->state_path))
		logmsg("cannot save state to %s: %s", d->state_path, strerror(errno));
}

static void load_state(struct daemon *d)
{
	if (!d->state_path)
		return;
	FILE *f = fopen(d->state_path, "r");
	if (!f)
		return;
	char line[256], out[256];
	while (fgets(line, sizeof(line), f)) {
		dm_control(&d->m, line, out, sizeof(out));
		if (strncmp(out, "ok", 2))
			logmsg("state %s: %s -> %s", d->state_path, line, out);
	}
	fclose(f);
}

static int listen_control(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	unlink(path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	chmod(path, 0600);
	return fd;
}

static void client_close(struct daemon *d, struct client *c)
{
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->used = 0;
}

/* a controller's lines; a slow or vanished controller never blocks the
 * data path: its socket is non-blocking and an answer it cannot take is
 * dropped with the connection */
static void client_read(struct daemon *d, struct client *c)
{
	for (;;) {
		ssize_t n = read(c->fd, c->in + c->used, sizeof(c->in) - 1 - c->used);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			client_close(d, c);
			return;
		}
		if (n < 0)
			return;
		c->used += (size_t)n;
		c->in[c->used] = 0;
		char *nl;
		while ((nl = strchr(c->in, '\n'))) {
			*nl = 0;
			int stop = dm_control(&d->m, c->in, d->out, sizeof(d->out));
			if (strncmp(c->in, "route", 5) == 0 || strncmp(c->in, "decouple", 8) == 0 ||
			    strncmp(c->in, "couple", 6) == 0)
				logmsg("control: %s -> %.*s", c->in, (int)strcspn(d->out, "\n"), d->out);
			size_t len = strlen(d->out);
			if (send(c->fd, d->out, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len) {
				client_close(d, c);
				if (stop)
					stopping = 1;
				return;
			}
			if (!strncmp(d->out, "ok", 2) && (strncmp(c->in, "route ", 6) == 0 ||
			    strncmp(c->in, "decouple", 8) == 0 || strncmp(c->in, "couple", 6) == 0))
				save_state(d);
			if (stop)
				stopping = 1;
			size_t rest = c->used - (size_t)(nl + 1 - c->in);
			memmove(c->in, nl + 1, rest + 1);
			c->used = rest;
		}
		if (c->used == sizeof(c->in) - 1) {
			client_close(d, c);
			return;
		}
	}
}

static void control_events(struct daemon *d, struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t tag = ev[i].data.u64;
		if (tag == 2) {
			int fd;
			while ((fd = accept4(d->listen_fd, NULL, NULL,
					     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				int k;
				for (k = 0; k < MAX_CLIENTS && d->cl[k].fd >= 0; k++)
					;
				if (k == MAX_CLIENTS) {
					close(fd);
					continue;
				}
				d->cl[k].fd = fd;
				d->cl[k].used = 0;
				struct epoll_event e = { .events = EPOLLIN, .data.u64 = 100 + (uint64_t)k };
				epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &e);
			}
		} else if (tag >= 100 && tag < 100 + MAX_CLIENTS) {
			struct client *c = &d->cl[tag - 100];
			if (c->fd >= 0)
				client_read(d, c);
		} else if (tag >= 1000 && tag < 1000 + DM_MAX_REGIONS) {
			struct dm_region *g = &d->m.region[tag - 1000];
			if (dm_irq_drain(g->irq_fd))
				ctr_add(&g->c[DMC_IRQS], 1);
		}
	}
}

int main(int argc, char **argv)
{
	static struct daemon d;
	const char *ifname = NULL, *counters = NULL, *control = NULL;
	struct region_arg ra[DM_MAX_REGIONS];
	int nra = 0;
	const char *routes[256];
	int nroutes = 0;
	unsigned max_frame = 9018, spin_us = 50, stall_us = 2000;
	int max_frame_given = 0;
	struct pktio_conf pc;
	pktio_default_conf(&pc);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v) {
			usage();
			return 2;
		}
		i++;
		if (!strcmp(a, "--interface"))
			ifname = v;
		else if (!strcmp(a, "--counters"))
			counters = v;
		else if (!strcmp(a, "--control"))
			control = v;
		else if (!strcmp(a, "--state"))
			d.state_path = v;
		else if (!strcmp(a, "--region") && nra < DM_MAX_REGIONS) {
			if (parse_region(v, &ra[nra++])) {
				logmsg("bad --region %s", v);
				return 2;
			}
		} else if (!strcmp(a, "--route") && nroutes < 256)
			routes[nroutes++] = v;
		else if (!strcmp(a, "--max-frame")) {
			max_frame = (unsigned)strtoul(v, NULL, 0);
			max_frame_given = 1;
		}
		else if (!strcmp(a, "--stall-us"))
			stall_us = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--spin-us"))
			spin_us = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--rx-ring")) {
			if (strcmp(v, "v2") && strcmp(v, "v3")) {
				usage();
				return 2;
			}
			pc.rx_version = v[1] == '2' ? PKTIO_RX_V2 : PKTIO_RX_V3;
		} else if (!strcmp(a, "--rx-frames"))
			pc.rx_frame_nr = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--rx-frame-size"))
			pc.rx_frame_size = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--rx-block-size"))
			pc.rx_block_size = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--rx-blocks"))
			pc.rx_block_nr = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--rx-tov-ms"))
			pc.rx_tov_ms = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--tx-frames"))
			pc.tx_frame_nr = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--io")) {
			if (strcmp(v, "packet") && strcmp(v, "xdp")) {
				usage();
				return 2;
			}
			if (!strcmp(v, "xdp"))
				pc.rx_version = PKTIO_XDP;
		} else if (!strcmp(a, "--xdp-mode")) {
			if (!strcmp(v, "auto"))
				pc.xdp_mode = XSK_MODE_AUTO;
			else if (!strcmp(v, "native"))
				pc.xdp_mode = XSK_MODE_NATIVE;
			else if (!strcmp(v, "generic"))
				pc.xdp_mode = XSK_MODE_GENERIC;
			else {
				usage();
				return 2;
			}
		} else if (!strcmp(a, "--xdp-queue"))
			pc.xdp_queue = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--xdp-frames"))
			pc.xdp_frames = (unsigned)strtoul(v, NULL, 0);
		else {
			usage();
			return 2;
		}
	}
	if (!ifname || !counters || !control || !nra) {
		usage();
		return 2;
	}
	if (pc.rx_version == PKTIO_XDP) {
		/* a frame is one UMEM chunk (no AF_XDP multi-buffer) */
		if (max_frame_given && max_frame > XSK_MAX_FRAME) {
			logmsg("--io xdp carries frames up to %u bytes (one AF_XDP chunk); "
			       "--max-frame %u needs --io packet", XSK_MAX_FRAME, max_frame);
			return 2;
		}
		if (max_frame > XSK_MAX_FRAME)
			max_frame = XSK_MAX_FRAME;
	}
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	/* counters: a fresh file, replaced atomically */
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", counters);
	int cfd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cfd < 0 || ftruncate(cfd, sizeof(struct dm_counters_file))) {
		logmsg("counters %s: %s", counters, strerror(errno));
		return 1;
	}
	struct dm_counters_file *ctr = mmap(NULL, sizeof(*ctr), PROT_READ | PROT_WRITE,
					    MAP_SHARED, cfd, 0);
	close(cfd);
	if (ctr == MAP_FAILED) {
		logmsg("counters %s: %s", counters, strerror(errno));
		return 1;
	}
	dm_init(&d.m, ctr);
	ctr->pid = (uint32_t)getpid();
	d.m.max_frame = max_frame;
	d.m.stall_ns = (uint64_t)stall_us * 1000u;
	d.m.log = logmsg;
	for (int k = 0; k < MAX_CLIENTS; k++)
		d.cl[k].fd = -1;

	char err[256];
	for (int i = 0; i < nra; i++) {
		struct region_arg *a = &ra[i];
		void *regs = dm_map(a->regs, a->regs_size, err, sizeof(err));
		void *buf = regs ? dm_map(a->buf, a->size, err, sizeof(err)) : NULL;
		if (!buf) {
			logmsg("region %s: %s", a->name, err);
			return 1;
		}
		int irq = -1;
		if (a->irq[0] && (irq = dm_irq_open(a->irq, err, sizeof(err))) < 0) {
			logmsg("region %s: %s", a->name, err);
			return 1;
		}
		int r = dm_add_region(&d.m, a->name, irq);
		if (r < 0 || sg_init(&d.m.region[r].dma, regs, buf, a->phys, a->size, a->ring,
				     a->slot, a->length_width)) {
			logmsg("region %s: %s", a->name, r < 0 ? "duplicate" : d.m.region[r].dma.err);
			return 1;
		}
		struct stat ist;
		if (irq >= 0 && !fstat(irq, &ist) && S_ISSOCK(ist.st_mode))
			d.m.region[r].dma.doorbell_fd = irq;   /* the emulated engine */
		if (dm_region_start(&d.m, r))
			return 1;
		logmsg("region %s: %u descriptors a direction, %u-byte slots, buffer 0x%llx+%zu%s",
		       a->name, d.m.region[r].dma.tx.n, d.m.region[r].dma.slot,
		       (unsigned long long)a->phys, a->size, irq >= 0 ? ", interrupts" : ", polling");
	}
	load_state(&d);
	for (int i = 0; i < nroutes; i++) {
		char line[128], out[128];
		char *s = strdup(routes[i]);
		char *v = strtok(s, ":"), *reg = strtok(NULL, ":"), *eg = strtok(NULL, ":");
		snprintf(line, sizeof(line), "route add %s %s %s", v ? v : "", reg ? reg : "",
			 eg ? eg : "-");
		free(s);
		dm_control(&d.m, line, out, sizeof(out));
		if (strncmp(out, "ok", 2)) {
			logmsg("--route %s: %s", routes[i], out);
			return 2;
		}
	}
	if (pktio_open(&d.io, ifname, &pc, err, sizeof(err))) {
		logmsg("%s: %s", ifname, err);
		return 1;
	}
	d.m.tx = &pktio_ops;
	d.m.tx_ctx = &d.io;

	d.listen_fd = listen_control(control);
	if (d.listen_fd < 0) {
		logmsg("control socket %s: %s", control, strerror(errno));
		return 1;
	}
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = 1 };
	epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.io.rx_fd, &e);
	e.data.u64 = 2;
	epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.listen_fd, &e);
	for (int r = 0; r < d.m.nregions; r++) {
		if (d.m.region[r].irq_fd < 0)
			continue;
		e.data.u64 = 1000 + (uint64_t)r;
		epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.m.region[r].irq_fd, &e);
	}
	rename(tmp, counters);
	if (d.io.xsk)
		logmsg("forwarding on %s (AF_XDP queue %u, %s mode, %s, frames up to %u bytes); "
		       "control %s; counters %s", ifname, pc.xdp_queue,
		       d.io.xsk->mode == XSK_MODE_NATIVE ? "native" : "generic",
		       d.io.xsk->zerocopy ? "zero-copy" : "copy", max_frame, control, counters);
	else
		logmsg("forwarding on %s (RX ring TPACKET_V%u); control %s; counters %s", ifname,
		       d.io.rx_version, control, counters);

	uint64_t *g = ctr->g;
	uint64_t last_work = now_ns(), next_second = last_work + 1000000000ull;
	unsigned round = 0;
	int any_polling_only = 0;
	for (int r = 0; r < d.m.nregions; r++)
		any_polling_only |= d.m.region[r].irq_fd < 0;
	struct epoll_event ev[16];
	while (!stopping) {
		d.m.now_ns = now_ns();
		d.m.held = 0;
		uint32_t work = pktio_rx(&d.io, 16, on_frame, &d.m);
		if (work)
			dm_ingress_flush(&d.m);
		work += dm_poll(&d.m, 256);
		ctr_add(&g[DMG_POLL_ROUNDS], 1);
		uint64_t t = d.m.now_ns;
		round++;
		if ((round & 63) == 0) {
			int n = epoll_wait(d.epfd, ev, 16, 0);
			control_events(&d, ev, n > 0 ? n : 0);
		}
		if (t && t >= next_second) {
			next_second = t + 1000000000ull;
			ctr_add(&g[DMG_HEARTBEAT], 1);
			ctr_add(&g[DMG_KERNEL_DROPS], pktio_kernel_drops(&d.io));
		}
		if (work) {
			last_work = t ? t : last_work;
			continue;
		}
		if (t - last_work < (uint64_t)spin_us * 1000u) {
			/* busy-polling without progress: on a shared CPU the
			 * engine (or the kernel's softirq) may be what we wait for */
			sched_yield();
			continue;
		}
		/* idle: acknowledge and re-arm interrupts, look once more (an
		 * event between the last poll and the re-arm is not lost: the
		 * interrupt is level-triggered and fires on re-arm), sleep */
		int inflight = 0;
		for (int r = 0; r < d.m.nregions; r++) {
			struct dm_region *rg = &d.m.region[r];
			if (!rg->healthy)
				continue;
			inflight |= dm_region_busy(&d.m, r) || rg->dma.meta_head != rg->dma.meta_tail;
			if (rg->irq_fd >= 0) {
				sg_ack_irq(&rg->dma);
				dm_irq_rearm(rg->irq_fd);
			}
		}
		if (d.m.held) {
			/* a frame waits in the interface's ring for its region's
			 * full MM2S ring, and the engine made no progress for
			 * --spin-us: give it the CPU for a moment rather than spin
			 * (the RX ring stays readable, so epoll would not sleep) */
			struct timespec pause = { 0, 100000 };
			nanosleep(&pause, NULL);
			ctr_add(&g[DMG_SLEEPS], 1);
			continue;
		}
		if (pktio_rx_ready(&d.io))
			continue;
		int ready = 0;
		for (int r = 0; r < d.m.nregions; r++)
			ready |= d.m.region[r].healthy && sg_rx_ready(&d.m.region[r].dma);
		if (ready)
			continue;
		ctr_add(&g[DMG_SLEEPS], 1);
		/* regions without an interrupt are polled every millisecond
		 * while frames are in flight */
		int timeout = (any_polling_only && inflight) ? 1 : 1000;
		int n = epoll_wait(d.epfd, ev, 16, timeout);
		if (n > 0)
			control_events(&d, ev, n);
		last_work = now_ns();
	}
	logmsg("stopping");
	for (int r = 0; r < d.m.nregions; r++)
		sg_stop(&d.m.region[r].dma);
	for (int k = 0; k < MAX_CLIENTS; k++)
		if (d.cl[k].fd >= 0)
			close(d.cl[k].fd);
	unlink(control);
	pktio_close(&d.io);
	return 0;
}
