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

#define _GNU_SOURCE
#include "xsk.h"

#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

static int sys_bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int ring_map(struct xsk *x, struct xsk_ring *r, const struct xdp_ring_offset *o,
		    uint64_t pgoff, uint32_t size, size_t desc_size)
{
	r->map_len = o->desc + (size_t)size * desc_size;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		      x->fd, (off_t)pgoff);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -1;
	}
	uint8_t *b = r->map;
	r->producer = (uint32_t *)(b + o->producer);
	r->consumer = (uint32_t *)(b + o->consumer);
	r->flags = (uint32_t *)(b + o->flags);
	r->desc = b + o->desc;
	r->size = size;
	r->mask = size - 1;
	return 0;
}

/* The steering program: every frame of the queue into the socket in the
 * XSKMAP's slot for that queue; XDP_PASS (the flags' low bits are the
 * action when the slot is empty) otherwise. */
static int load_program(int map_fd, char *log, size_t loglen)
{
	struct bpf_insn insns[] = {
		/* r2 = ctx->rx_queue_index */
		{ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_1,
		  .off = 16 },
		/* r1 = &xskmap (a 64-bit immediate: two instructions) */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd },
		{ 0 },
		/* r3 = XDP_PASS */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect_map },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.expected_attach_type = BPF_XDP;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	a.license = (uint64_t)(uintptr_t)"Apache-2.0";
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = (uint32_t)loglen;
	a.log_level = 1;
	snprintf(a.prog_name, sizeof(a.prog_name), "nova_fpga_xsk");
	int fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		/* without the verifier's log: some kernels refuse a log buffer
		 * for a program that loads */
		a.log_buf = 0;
		a.log_size = 0;
		a.log_level = 0;
		fd = sys_bpf(BPF_PROG_LOAD, &a);
	}
	return fd;
}

static int attach(int prog_fd, unsigned ifindex, uint32_t flags)
{
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog_fd;
	a.link_create.target_ifindex = ifindex;
	a.link_create.attach_type = BPF_XDP;
	a.link_create.flags = flags;
	return sys_bpf(BPF_LINK_CREATE, &a);
}

int xsk_open(struct xsk *x, const char *ifname, unsigned queue, int mode,
	     unsigned frames, char *err, size_t errlen)
{
	memset(x, 0, sizeof(*x));
	x->fd = x->map_fd = x->prog_fd = x->link_fd = -1;
	if (!frames || (frames & (frames - 1))) {
		snprintf(err, errlen, "AF_XDP frames %u: not a power of two", frames);
		return -1;
	}
	unsigned ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return fail(err, errlen, ifname);
	x->frames = frames;
	x->umem_len = (size_t)XSK_CHUNK * frames * 2;
	x->umem = mmap(NULL, x->umem_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->umem == MAP_FAILED) {
		x->umem = NULL;
		return fail(err, errlen, "UMEM");
	}
	x->tx_free = calloc(frames, sizeof(*x->tx_free));
	if (!x->tx_free)
		return fail(err, errlen, "TX chunks");
	/* the first half receives, the second sends */
	for (unsigned i = 0; i < frames; i++)
		x->tx_free[i] = (uint64_t)(frames + i) * XSK_CHUNK;
	x->tx_nfree = frames;

	x->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return fail(err, errlen, "AF_XDP socket (kernel without CONFIG_XDP_SOCKETS?)");
	struct xdp_umem_reg ur = {
		.addr = (uint64_t)(uintptr_t)x->umem,
		.len = x->umem_len,
		.chunk_size = XSK_CHUNK,
		.headroom = 0,
	};
	if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &ur, sizeof(ur)))
		return fail(err, errlen, "XDP_UMEM_REG");
	int n = (int)frames;
	if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof(n)) ||
	    setsockopt(x->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof(n)) ||
	    setsockopt(x->fd, SOL_XDP, XDP_RX_RING, &n, sizeof(n)) ||
	    setsockopt(x->fd, SOL_XDP, XDP_TX_RING, &n, sizeof(n)))
		return fail(err, errlen, "AF_XDP rings");
	struct xdp_mmap_offsets off;
	socklen_t ol = sizeof(off);
	if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &ol))
		return fail(err, errlen, "XDP_MMAP_OFFSETS");
	if (ring_map(x, &x->rx, &off.rx, XDP_PGOFF_RX_RING, frames, sizeof(struct xdp_desc)) ||
	    ring_map(x, &x->tx, &off.tx, XDP_PGOFF_TX_RING, frames, sizeof(struct xdp_desc)) ||
	    ring_map(x, &x->fill, &off.fr, XDP_UMEM_PGOFF_FILL_RING, frames, sizeof(uint64_t)) ||
	    ring_map(x, &x->comp, &off.cr, XDP_UMEM_PGOFF_COMPLETION_RING, frames,
		     sizeof(uint64_t)))
		return fail(err, errlen, "mmap AF_XDP rings");
	/* every receive chunk to the kernel */
	uint64_t *fd = x->fill.desc;
	for (unsigned i = 0; i < frames; i++)
		fd[i] = (uint64_t)i * XSK_CHUNK;
	x->fill.cached = frames;
	__atomic_store_n(x->fill.producer, frames, __ATOMIC_RELEASE);

	/* neither XDP_COPY nor XDP_ZEROCOPY: zero-copy where the driver has it,
	 * else copy */
	struct sockaddr_xdp sx = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = ifindex,
		.sxdp_queue_id = queue,
		.sxdp_flags = XDP_USE_NEED_WAKEUP,
	};
	if (bind(x->fd, (struct sockaddr *)&sx, sizeof(sx))) {
		char what[96];
		snprintf(what, sizeof(what), "bind AF_XDP socket to %s queue %u", ifname, queue);
		return fail(err, errlen, what);
	}
	struct xdp_options xo;
	socklen_t xl = sizeof(xo);
	if (!getsockopt(x->fd, SOL_XDP, XDP_OPTIONS, &xo, &xl))
		x->zerocopy = (xo.flags & XDP_OPTIONS_ZEROCOPY) != 0;

	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_XSKMAP;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = queue + 1;
	x->map_fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (x->map_fd < 0)
		return fail(err, errlen, "XSKMAP");
	uint32_t key = queue, val = (uint32_t)x->fd;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)x->map_fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&val;
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a))
		return fail(err, errlen, "XSKMAP update");
	char log[2048] = "";
	x->prog_fd = load_program(x->map_fd, log, sizeof(log));
	if (x->prog_fd < 0) {
		int e = errno;
		snprintf(err, errlen, "XDP program: %s%s%s", strerror(e), log[0] ? ": " : "", log);
		return -1;
	}
	if (mode != XSK_MODE_GENERIC) {
		x->link_fd = attach(x->prog_fd, ifindex, XDP_FLAGS_DRV_MODE);
		x->mode = XSK_MODE_NATIVE;
	}
	if (x->link_fd < 0 && mode != XSK_MODE_NATIVE) {
		x->link_fd = attach(x->prog_fd, ifindex, XDP_FLAGS_SKB_MODE);
		x->mode = XSK_MODE_GENERIC;
	}
	if (x->link_fd < 0) {
		char what[128];
		snprintf(what, sizeof(what), "attach XDP program to %s (%s mode%s)", ifname,
			 mode == XSK_MODE_NATIVE ? "native" : mode == XSK_MODE_GENERIC ?
			 "generic" : "native or generic",
			 errno == EBUSY || errno == EEXIST ? "; another XDP program is attached" : "");
		return fail(err, errlen, what);
	}
	return 0;
}

void xsk_close(struct xsk *x)
{
	/* the link first: the interface is back to the stack */
	if (x->link_fd >= 0)
		close(x->link_fd);
	if (x->prog_fd >= 0)
		close(x->prog_fd);
	if (x->map_fd >= 0)
		close(x->map_fd);
	struct xsk_ring *rings[] = { &x->rx, &x->tx, &x->fill, &x->comp };
	for (unsigned i = 0; i < 4; i++)
		if (rings[i]->map)
			munmap(rings[i]->map, rings[i]->map_len);
	if (x->fd >= 0)
		close(x->fd);
	if (x->umem)
		munmap(x->umem, x->umem_len);
	free(x->tx_free);
	memset(x, 0, sizeof(*x));
	x->fd = x->map_fd = x->prog_fd = x->link_fd = -1;
}

int xsk_rx_ready(const struct xsk *x)
{
	return __atomic_load_n(x->rx.producer, __ATOMIC_ACQUIRE) != x->rx.cached;
}

static void fill_kick(struct xsk *x)
{
	if (__atomic_load_n(x->fill.flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP)
		recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

unsigned xsk_rx(struct xsk *x, unsigned max, xsk_rx_fn fn, void *ctx)
{
	uint32_t prod = __atomic_load_n(x->rx.producer, __ATOMIC_ACQUIRE);
	const struct xdp_desc *d = x->rx.desc;
	uint64_t *fill = x->fill.desc;
	unsigned n = 0;
	while (n < max && x->rx.cached != prod) {
		const struct xdp_desc *e = &d[x->rx.cached & x->rx.mask];
		if (fn(ctx, x->umem + e->addr, e->len))
			break;  /* offered again next time: the chunk stays ours */
		/* the chunk back to the kernel (FILL has room: it holds every
		 * receive chunk) */
		fill[x->fill.cached & x->fill.mask] = e->addr & ~(uint64_t)(XSK_CHUNK - 1);
		x->fill.cached++;
		x->rx.cached++;
		n++;
	}
	if (n) {
		__atomic_store_n(x->rx.consumer, x->rx.cached, __ATOMIC_RELEASE);
		__atomic_store_n(x->fill.producer, x->fill.cached, __ATOMIC_RELEASE);
		fill_kick(x);
	}
	return n;
}

/* sent chunks back from the COMPLETION ring */
static void reap(struct xsk *x)
{
	uint32_t prod = __atomic_load_n(x->comp.producer, __ATOMIC_ACQUIRE);
	const uint64_t *c = x->comp.desc;
	while (x->comp.cached != prod && x->tx_nfree < x->frames)
		x->tx_free[x->tx_nfree++] = c[x->comp.cached++ & x->comp.mask];
	__atomic_store_n(x->comp.consumer, x->comp.cached, __ATOMIC_RELEASE);
}

uint8_t *xsk_tx_alloc(struct xsk *x, uint32_t len)
{
	if (len > XSK_CHUNK)
		return NULL;
	if (!x->tx_nfree) {
		reap(x);
		if (!x->tx_nfree && x->tx_pending) {
			xsk_tx_flush(x);
			reap(x);
		}
		if (!x->tx_nfree)
			return NULL;
	}
	return x->umem + x->tx_free[x->tx_nfree - 1];
}

void xsk_tx_commit(struct xsk *x, uint32_t len)
{
	struct xdp_desc *d = x->tx.desc;
	/* TX has room: it holds every send chunk */
	struct xdp_desc *e = &d[x->tx.cached & x->tx.mask];
	e->addr = x->tx_free[--x->tx_nfree];
	e->len = len;
	e->options = 0;
	x->tx.cached++;
	x->tx_pending++;
}

void xsk_tx_flush(struct xsk *x)
{
	if (!x->tx_pending)
		return;
	__atomic_store_n(x->tx.producer, x->tx.cached, __ATOMIC_RELEASE);
	x->tx_pending = 0;
	/* copy mode sends at most a small batch a call (32 in Linux's
	 * xsk_generic_xmit): kick until the kernel took every descriptor or
	 * says it cannot now */
	for (int i = 0; i < 64; i++) {
		if (!(__atomic_load_n(x->tx.flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP) &&
		    x->zerocopy)
			break;
		if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
			break;
		if (__atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE) == x->tx.cached)
			break;
	}
	reap(x);
}

unsigned xsk_kernel_drops(struct xsk *x)
{
	struct xdp_statistics st;
	socklen_t l = sizeof(st);
	if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &l))
		return 0;
	/* frames the kernel could not give us: no chunk in FILL or too long
	 * for a chunk (rx_dropped), no room in RX (rx_ring_full) */
	uint64_t total = st.rx_dropped + st.rx_ring_full;
	uint64_t d = total - x->last_drops;
	x->last_drops = total;
	return (unsigned)d;
}
