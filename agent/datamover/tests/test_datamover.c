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
 * Unit tests of the mover's core against the emulated AXI DMA in the same
 * process: the engine runs when a test steps it (and while the driver waits
 * for a register), so every interleaving is deterministic.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu/sgemu.h"
#include "../src/ctl.h"
#include "../src/mover.h"
#include "../src/pktio.h"
#include "../src/xsk.h"
#include <linux/if_xdp.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>

static int failures, checks;
static const char *current;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
	fprintf(stderr, "FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, current, #cond); } } while (0)
#define CHECK_EQ(a, b) do { unsigned long long _a = (a), _b = (b); checks++; if (_a != _b) { \
	failures++; fprintf(stderr, "FAIL %s:%d [%s]: %s == %llu, expected %s == %llu\n", \
	__FILE__, __LINE__, current, #a, _a, #b, _b); } } while (0)

/* ---- a memory TX sink ---------------------------------------------------- */
#define SINK_MAX 512
struct sink {
	uint8_t frame[SINK_MAX][9300];
	uint32_t len[SINK_MAX];
	unsigned n, cap, flushes;
};

static uint8_t *sink_alloc(void *ctx, uint32_t len)
{
	struct sink *s = ctx;
	if (s->n >= s->cap || len > sizeof(s->frame[0]))
		return NULL;
	return s->frame[s->n];
}

static void sink_commit(void *ctx, uint32_t len)
{
	struct sink *s = ctx;
	s->len[s->n++] = len;
}

static void sink_flush(void *ctx)
{
	((struct sink *)ctx)->flushes++;
}

static const struct dm_tx_ops sink_ops = { sink_alloc, sink_commit, sink_flush };

/* ---- a board: regions with their engines --------------------------------- */
struct board {
	struct dm_mover m;
	struct dm_counters_file ctr;
	struct sgemu e[2];
	uint32_t *win[2];
	uint8_t *buf[2];
	struct sink sink;
	unsigned fired[2];
	char log[4096];
};

static struct board *B;

static void step_hook(void *ctx)
{
	sgemu_step(ctx);
}

static void fired(void *ctx, uint32_t count)
{
	(void)count;
	(*(unsigned *)ctx)++;
}

static void testlog(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t used = strlen(B->log);
	vsnprintf(B->log + used, sizeof(B->log) - used, fmt, ap);
	va_end(ap);
}

#define PHYS0 0x1F000000u
#define PHYS1 0x1E000000u

static struct board *board_new(int nregions, uint32_t ring, size_t bufsize)
{
	struct board *b = calloc(1, sizeof(*b));
	B = b;
	dm_init(&b->m, &b->ctr);
	b->m.log = testlog;
	b->sink.cap = SINK_MAX;
	b->m.tx = &sink_ops;
	b->m.tx_ctx = &b->sink;
	for (int r = 0; r < nregions; r++) {
		b->win[r] = aligned_alloc(4096, PG021_WINDOW_BYTES);
		b->buf[r] = aligned_alloc(4096, bufsize);
		memset(b->win[r], 0, PG021_WINDOW_BYTES);
		uint64_t phys = r ? PHYS1 : PHYS0;
		if (sgemu_init(&b->e[r], b->win[r], b->buf[r], phys, bufsize, 23))
			abort();
		b->e[r].irq_fire = fired;
		b->e[r].irq_ctx = &b->fired[r];
		char name[8];
		snprintf(name, sizeof(name), "r%d", r);
		int idx = dm_add_region(&b->m, name, -1);
		struct sg_dma *d = &b->m.region[idx].dma;
		if (sg_init(d, b->win[r], b->buf[r], phys, bufsize, ring, 0, 23)) {
			fprintf(stderr, "sg_init: %s\n", d->err);
			abort();
		}
		d->wait_hook = step_hook;
		d->wait_ctx = &b->e[r];
		if (dm_region_start(&b->m, idx)) {
			fprintf(stderr, "start: %s\n", d->err);
			abort();
		}
	}
	return b;
}

static void board_free(struct board *b)
{
	for (int r = 0; r < b->m.nregions; r++) {
		sg_free(&b->m.region[r].dma);
		sgemu_free(&b->e[r]);
		free(b->win[r]);
		free(b->buf[r]);
	}
	free(b);
}

/* run engines and mover until nothing moves */
static void settle(struct board *b)
{
	for (int i = 0; i < 10000; i++) {
		int w = 0;
		dm_ingress_flush(&b->m);
		for (int r = 0; r < b->m.nregions; r++)
			w += sgemu_step(&b->e[r]);
		w += (int)dm_poll(&b->m, 64);
		if (!w)
			return;
	}
}

/* a tagged frame: dst, src, 802.1Q tag, ethertype 0x88B5, payload pattern */
static uint32_t make_frame(uint8_t *f, uint32_t len, unsigned pcp, unsigned vlan, uint8_t seed)
{
	memset(f, 0, 18);
	for (int i = 0; i < 6; i++) {
		f[i] = (uint8_t)(0x02 + i);
		f[6 + i] = (uint8_t)(0x12 + i);
	}
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = (uint8_t)((pcp << 5) | (vlan >> 8));
	f[15] = (uint8_t)vlan;
	f[16] = 0x88;
	f[17] = 0xB5;
	for (uint32_t i = 18; i < len; i++)
		f[i] = (uint8_t)(seed + i * 7);
	return len;
}

static uint64_t rc(struct board *b, int r, int c)
{
	return b->ctr.r[r].c[c];
}

/* the output frame k equals input `in` with its tag replaced */
static int same_but_tag(const uint8_t *out, uint32_t olen, const uint8_t *in, uint32_t ilen,
			unsigned pcp, unsigned vlan)
{
	if (olen != ilen || memcmp(out, in, 12) || memcmp(out + 16, in + 16, ilen - 16))
		return 0;
	unsigned tci = (unsigned)out[14] << 8 | out[15];
	return out[12] == 0x81 && out[13] == 0 && tci == ((pcp << 13) | vlan);
}

static uint8_t fbuf[10000];

/* ---- tests ---------------------------------------------------------------- */

static void test_reset_values(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	volatile uint32_t *w = b->win[0];
	struct sgemu e;
	uint32_t *win = aligned_alloc(4096, PG021_WINDOW_BYTES);
	uint8_t *buf = aligned_alloc(4096, 1 << 16);
	sgemu_init(&e, win, buf, PHYS0, 1 << 16, 23);
	/* PG021 defaults: DMACR 0x00010002, DMASR Halted | SGIncld */
	CHECK_EQ(reg_rd(win, PG021_MM2S + PG021_DMACR), 0x00010002);
	CHECK_EQ(reg_rd(win, PG021_S2MM + PG021_DMACR), 0x00010002);
	CHECK_EQ(reg_rd(win, PG021_MM2S + PG021_DMASR) & 0xFFFF, DMASR_HALTED | DMASR_SGINCLD);
	/* TAILDESC while halted: no effect on operation */
	reg_wr(win, PG021_MM2S + PG021_TAILDESC, PHYS0);
	sgemu_step(&e);
	CHECK(reg_rd(win, PG021_MM2S + PG021_DMASR) & DMASR_HALTED);
	CHECK_EQ(e.ch[0].descs, 0);
	sgemu_free(&e);
	free(win);
	free(buf);
	/* the started board: both channels running, S2MM ring given */
	CHECK(!(reg_rd(w, PG021_MM2S + PG021_DMASR) & DMASR_HALTED));
	CHECK(!(reg_rd(w, PG021_S2MM + PG021_DMASR) & DMASR_HALTED));
	CHECK_EQ(reg_rd(w, PG021_S2MM + PG021_DMACR) & 0xFFFF, DMACR_RS | DMACR_RSVD1 |
		 DMACR_IOC_IRQEN | DMACR_ERR_IRQEN);
	/* CURDESC is read-only while running */
	uint32_t cur = reg_rd(w, PG021_MM2S + PG021_CURDESC);
	reg_wr(w, PG021_MM2S + PG021_CURDESC, PHYS0 + 0x1000);
	sgemu_step(&b->e[0]);
	CHECK_EQ(reg_rd(w, PG021_MM2S + PG021_CURDESC), cur);
	board_free(b);
}

static void test_loopback_tags(void)
{
	struct board *b = board_new(1, 16, 1 << 20);
	CHECK_EQ(dm_route_add(&b->m, 100, 0, 200), 0);
	uint32_t len = make_frame(fbuf, 100, 5, 100, 1);
	/* tag in the data */
	dm_ingress(&b->m, fbuf, len, -1, len);
	/* tag taken off by the kernel (TP_STATUS_VLAN_VALID) */
	static uint8_t untagged[200];
	memcpy(untagged, fbuf, 12);
	memcpy(untagged + 12, fbuf + 16, len - 16);
	dm_ingress(&b->m, untagged, len - 4, (3 << 13) | 100, len - 4);
	settle(b);
	CHECK_EQ(b->sink.n, 2);
	CHECK(same_but_tag(b->sink.frame[0], b->sink.len[0], fbuf, len, 5, 200));
	CHECK(same_but_tag(b->sink.frame[1], b->sink.len[1], fbuf, len, 3, 200));
	CHECK_EQ(rc(b, 0, DMC_FRAMES_IN), 2);
	CHECK_EQ(rc(b, 0, DMC_BYTES_IN), 2 * (len - 4));
	CHECK_EQ(rc(b, 0, DMC_FRAMES_OUT), 2);
	CHECK_EQ(rc(b, 0, DMC_BYTES_OUT), 2 * len);
	/* a route without egress: output dropped and counted */
	CHECK_EQ(dm_route_add(&b->m, 101, 0, DM_NO_VLAN), 0);
	make_frame(fbuf, 100, 0, 101, 2);
	dm_ingress(&b->m, fbuf, 100, -1, 100);
	settle(b);
	CHECK_EQ(b->sink.n, 2);
	CHECK_EQ(rc(b, 0, DMC_DROP_NO_EGRESS), 1);
	board_free(b);
}

static void test_ring_wraparound(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	unsigned sent = 0;
	for (int batch = 0; batch < 40; batch++) {
		for (int k = 0; k < 1 + batch % 7; k++) {
			uint32_t len = make_frame(fbuf, 60 + (sent % 50), sent % 8, 100, (uint8_t)sent);
			dm_ingress(&b->m, fbuf, len, -1, len);
			sent++;
		}
		settle(b);
	}
	CHECK_EQ(rc(b, 0, DMC_FRAMES_IN), sent);
	CHECK_EQ(rc(b, 0, DMC_FRAMES_OUT), sent);
	CHECK_EQ(rc(b, 0, DMC_DROP_RING_FULL), 0);
	CHECK(b->m.region[0].dma.tx.cons > 4 * 8);    /* wrapped many times */
	CHECK(b->m.region[0].dma.rx.cons > 4 * 8);
	int in_order = 1;
	for (unsigned i = 0; i < sent && i < SINK_MAX; i++) {
		uint32_t len = make_frame(fbuf, 60 + (i % 50), i % 8, 100, (uint8_t)i);
		in_order &= same_but_tag(b->sink.frame[i], b->sink.len[i], fbuf, len, i % 8, 200);
	}
	CHECK(in_order);
	CHECK_EQ(reg_rd(b->win[0], PG021_MM2S + PG021_DMASR) & DMASR_ERR_ALL, 0);
	board_free(b);
}

static void test_ring_full(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	/* the engine does not run: 7 of 8 descriptors can be given */
	for (int k = 0; k < 10; k++) {
		uint32_t len = make_frame(fbuf, 64, 0, 100, (uint8_t)k);
		dm_ingress(&b->m, fbuf, len, -1, len);
	}
	CHECK_EQ(rc(b, 0, DMC_FRAMES_IN), 7);
	CHECK_EQ(rc(b, 0, DMC_DROP_RING_FULL), 3);
	settle(b);
	CHECK_EQ(b->sink.n, 7);
	/* TX ring (sink) full: the output is counted as ring full */
	b->sink.cap = b->sink.n + 2;
	for (int k = 0; k < 5; k++) {
		uint32_t len = make_frame(fbuf, 64, 0, 100, (uint8_t)k);
		dm_ingress(&b->m, fbuf, len, -1, len);
	}
	settle(b);
	CHECK_EQ(b->sink.n, 9);
	CHECK_EQ(rc(b, 0, DMC_DROP_RING_FULL), 3 + 3);
	board_free(b);
}

static void test_ring_full_holds_then_drops(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	b->m.stall_ns = 1000;
	b->m.now_ns = 5000;
	uint32_t len = make_frame(fbuf, 64, 0, 100, 1);
	for (int k = 0; k < 7; k++)
		CHECK_EQ(dm_ingress(&b->m, fbuf, len, -1, len), 0);
	/* full: the frame stays in the interface's ring (offer it again) */
	CHECK_EQ(dm_ingress(&b->m, fbuf, len, -1, len), 1);
	b->m.now_ns += 999;
	CHECK_EQ(dm_ingress(&b->m, fbuf, len, -1, len), 1);
	CHECK_EQ(rc(b, 0, DMC_DROP_RING_FULL), 0);
	CHECK_EQ(b->ctr.g[DMG_RX_FRAMES], 7);   /* a held frame counts once taken */
	/* held too long: dropped and counted */
	b->m.now_ns += 1;
	CHECK_EQ(dm_ingress(&b->m, fbuf, len, -1, len), 0);
	CHECK_EQ(rc(b, 0, DMC_DROP_RING_FULL), 1);
	/* the engine drains it: taken again */
	settle(b);
	CHECK_EQ(dm_ingress(&b->m, fbuf, len, -1, len), 0);
	CHECK_EQ(rc(b, 0, DMC_FRAMES_IN), 8);
	board_free(b);
}

static void test_unknown_vlan(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	uint32_t len = make_frame(fbuf, 80, 0, 300, 0);
	dm_ingress(&b->m, fbuf, len, -1, len);          /* unknown VLAN */
	dm_ingress(&b->m, fbuf, len - 4, 301, len - 4); /* unknown, kernel-stripped */
	fbuf[12] = 0x08;
	fbuf[13] = 0x00;
	dm_ingress(&b->m, fbuf, len, -1, len);          /* untagged */
	settle(b);
	CHECK_EQ(b->ctr.g[DMG_DROP_NO_ROUTE], 3);
	CHECK_EQ(rc(b, 0, DMC_FRAMES_IN), 0);
	CHECK_EQ(b->sink.n, 0);
	CHECK_EQ(b->e[0].ch[0].descs, 0);
	/* a route removed: its VLAN is unknown again */
	dm_route_del(&b->m, 100);
	make_frame(fbuf, 80, 0, 100, 0);
	dm_ingress(&b->m, fbuf, 80, -1, 80);
	CHECK_EQ(b->ctr.g[DMG_DROP_NO_ROUTE], 4);
	board_free(b);
}

static void test_oversize_and_jumbo(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	uint32_t len = make_frame(fbuf, 9018, 6, 100, 9);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	CHECK_EQ(b->sink.n, 1);
	CHECK(same_but_tag(b->sink.frame[0], b->sink.len[0], fbuf, 9018, 6, 200));
	CHECK_EQ(rc(b, 0, DMC_BYTES_IN), 9014);
	/* one byte more than the largest frame */
	len = make_frame(fbuf, 9019, 6, 100, 9);
	dm_ingress(&b->m, fbuf, len, -1, len);
	/* truncated by the ring */
	dm_ingress(&b->m, fbuf, 2000, -1, 9019);
	CHECK_EQ(rc(b, 0, DMC_DROP_OVERSIZE), 2);
	/* the module emits a 12,000-byte packet: S2MM spreads it over two
	 * descriptors (RXSOF, then RXEOF); dropped as oversize, ring intact */
	static uint8_t big[12000];
	memset(big, 0xAB, sizeof(big));
	CHECK_EQ(sgemu_inject(&b->e[0], big, sizeof(big)), 0);
	settle(b);
	CHECK_EQ(rc(b, 0, DMC_DROP_OVERSIZE), 3);
	CHECK_EQ(b->sink.n, 1);
	len = make_frame(fbuf, 64, 1, 100, 3);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	CHECK_EQ(b->sink.n, 2);
	CHECK(same_but_tag(b->sink.frame[1], b->sink.len[1], fbuf, 64, 1, 200));
	CHECK_EQ(rc(b, 0, DMC_DMA_RESETS), 0);
	board_free(b);
}

static void test_descriptor_errors(void)
{
	struct board *b = board_new(2, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	dm_route_add(&b->m, 110, 1, 210);
	/* region 1 has a frame in its module's path */
	uint32_t len = make_frame(fbuf, 64, 0, 110, 1);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	uint64_t r1_descs = b->e[1].ch[0].descs;

	/* a descriptor with length 0: DMAIntErr, channel halted */
	len = make_frame(fbuf, 64, 0, 100, 1);
	dm_ingress(&b->m, fbuf, len, -1, len);
	struct sg_dma *d = &b->m.region[0].dma;
	struct pg021_desc *x = sg_desc(d, &d->tx, d->tx.prod - 1);
	x->control = DESC_CTRL_SOF | DESC_CTRL_EOF;     /* length 0 */
	dm_ingress_flush(&b->m);
	sgemu_step(&b->e[0]);
	uint32_t sr = reg_rd(b->win[0], PG021_MM2S + PG021_DMASR);
	CHECK(sr & DMASR_DMAINTERR);
	CHECK(sr & DMASR_ERR_IRQ);
	CHECK(sr & DMASR_HALTED);
	CHECK_EQ(x->status & DESC_STS_DMAINTERR, DESC_STS_DMAINTERR);
	CHECK_EQ(b->fired[0], 1);    /* Err_IrqEn: the interrupt fires */
	dm_poll(&b->m, 64);          /* sees the error: resets region 0 only */
	CHECK_EQ(rc(b, 0, DMC_DMA_RESETS), 1);
	CHECK_EQ(rc(b, 0, DMC_DROP_DMA_ERROR), 1);
	CHECK(strstr(b->log, "AXI DMA error") != NULL);
	CHECK_EQ(reg_rd(b->win[0], PG021_MM2S + PG021_DMASR) & (DMASR_ERR_ALL | DMASR_HALTED), 0);
	/* region 1 untouched: no reset, its engine's state kept */
	CHECK_EQ(rc(b, 1, DMC_DMA_RESETS), 0);
	CHECK_EQ(b->e[1].ch[0].descs, r1_descs);
	/* forwarding continues on region 0 */
	len = make_frame(fbuf, 64, 2, 100, 7);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	CHECK(same_but_tag(b->sink.frame[b->sink.n - 1], b->sink.len[b->sink.n - 1], fbuf, 64,
			   2, 200));

	/* a buffer address outside memory: DMADecErr */
	dm_ingress(&b->m, fbuf, len, -1, len);
	x = sg_desc(d, &d->tx, d->tx.prod - 1);
	x->buffer_address = 0x10;
	dm_ingress_flush(&b->m);
	sgemu_step(&b->e[0]);
	CHECK(reg_rd(b->win[0], PG021_MM2S + PG021_DMASR) & DMASR_DMADECERR);
	dm_poll(&b->m, 64);
	CHECK_EQ(rc(b, 0, DMC_DMA_RESETS), 2);
	x->buffer_address = (uint32_t)(d->phys + d->tx.slot_off); /* repaired by reset too */

	/* an S2MM descriptor fetched with Cmplt already set: SGIntErr */
	struct pg021_desc *y = sg_desc(d, &d->rx, d->rx.cons);
	y->status = DESC_STS_CMPLT | DESC_STS_DMASLVERR;   /* and an error status */
	sgemu_inject(&b->e[0], fbuf, 64);
	dm_poll(&b->m, 64);          /* reaps the errored descriptor: reset */
	CHECK_EQ(rc(b, 0, DMC_DMA_RESETS), 3);
	settle(b);
	CHECK_EQ(rc(b, 1, DMC_DMA_RESETS), 0);
	len = make_frame(fbuf, 64, 4, 100, 8);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	CHECK(same_but_tag(b->sink.frame[b->sink.n - 1], b->sink.len[b->sink.n - 1], fbuf, 64,
			   4, 200));
	board_free(b);
}

static void test_sg_interr_on_completed_descriptor(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	struct sg_dma *d = &b->m.region[0].dma;
	/* give a descriptor whose status still says Cmplt */
	uint32_t len = make_frame(fbuf, 64, 0, 100, 1);
	sg_submit(d, fbuf, 12, fbuf + 16, len - 16, 0);
	sg_desc(d, &d->tx, 0)->status = DESC_STS_CMPLT;
	sg_tx_flush(d);
	sgemu_step(&b->e[0]);
	uint32_t sr = reg_rd(b->win[0], PG021_MM2S + PG021_DMASR);
	CHECK(sr & DMASR_SGINTERR);
	CHECK(sr & DMASR_HALTED);
	CHECK(sg_check(d, NULL, NULL) & DMASR_SGINTERR);
	board_free(b);
}

static void test_interrupts(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	volatile uint32_t *w = b->win[0];
	uint32_t len = make_frame(fbuf, 64, 0, 100, 1);
	dm_ingress(&b->m, fbuf, len, -1, len);
	dm_ingress_flush(&b->m);
	sgemu_step(&b->e[0]);
	sgemu_step(&b->e[0]);
	/* S2MM IOC (IRQThreshold 1) fired once; the line is masked now */
	CHECK(reg_rd(w, PG021_S2MM + PG021_DMASR) & DMASR_IOC_IRQ);
	CHECK_EQ(b->fired[0], 1);
	CHECK_EQ(b->e[0].irq_enabled, 0);
	/* MM2S completed too, without IOC_IrqEn: the bit is set, no line */
	CHECK(reg_rd(w, PG021_MM2S + PG021_DMASR) & DMASR_IOC_IRQ);
	/* re-armed while still asserted: level-triggered, fires again */
	sgemu_irqcontrol(&b->e[0], 1);
	sgemu_step(&b->e[0]);
	CHECK_EQ(b->fired[0], 2);
	/* acknowledge (write 1 to clear), re-arm: quiet */
	sg_ack_irq(&b->m.region[0].dma);
	sgemu_step(&b->e[0]);
	uint32_t sr = reg_rd(w, PG021_S2MM + PG021_DMASR);
	CHECK_EQ(sr & DMASR_IRQ_ALL, 0);
	CHECK(sr & DMASR_SGINCLD);          /* W1C leaves the other bits */
	CHECK(!(sr & DMASR_HALTED));
	sgemu_irqcontrol(&b->e[0], 1);
	sgemu_step(&b->e[0]);
	CHECK_EQ(b->fired[0], 2);
	/* writing 0s to DMASR changes nothing */
	reg_wr(w, PG021_S2MM + PG021_DMASR, 0);
	sgemu_step(&b->e[0]);
	CHECK(reg_rd(w, PG021_S2MM + PG021_DMASR) & DMASR_SGINCLD);
	dm_poll(&b->m, 64);
	CHECK_EQ(b->sink.n, 1);
	/* IRQThreshold 3: one IOC for three frames */
	reg_wr(w, PG021_S2MM + PG021_DMACR, DMACR_RS | DMACR_IOC_IRQEN | DMACR_ERR_IRQEN |
	       (3u << DMACR_THRESH_SHIFT));
	sgemu_step(&b->e[0]);
	for (int k = 0; k < 3; k++) {
		dm_ingress(&b->m, fbuf, len, -1, len);
		dm_ingress_flush(&b->m);
		sgemu_step(&b->e[0]);
		sgemu_step(&b->e[0]);
		CHECK_EQ(b->fired[0], 2 + (k == 2));
	}
	board_free(b);
}

static void test_decouple(void)
{
	struct board *b = board_new(1, 8, 1 << 20);
	dm_route_add(&b->m, 100, 0, 200);
	uint32_t len = make_frame(fbuf, 64, 0, 100, 1);
	/* two frames in flight when the region is decoupled */
	dm_ingress(&b->m, fbuf, len, -1, len);
	dm_ingress(&b->m, fbuf, len, -1, len);
	dm_ingress_flush(&b->m);
	sgemu_step(&b->e[0]);
	dm_decouple(&b->m, 0);
	CHECK_EQ(rc(b, 0, DMC_DECOUPLED), 1);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	CHECK_EQ(b->sink.n, 0);                  /* never handed on */
	CHECK_EQ(rc(b, 0, DMC_DROP_DECOUPLED), 3);
	/* the next holder: fresh rings, nothing of the previous one's */
	dm_route_del(&b->m, 100);
	dm_route_add(&b->m, 120, 0, 220);
	CHECK_EQ(dm_couple(&b->m, 0), 0);
	dm_ingress(&b->m, fbuf, len, -1, len);   /* old VLAN: no route */
	CHECK_EQ(b->ctr.g[DMG_DROP_NO_ROUTE], 1);
	len = make_frame(fbuf, 64, 7, 120, 4);
	dm_ingress(&b->m, fbuf, len, -1, len);
	settle(b);
	CHECK_EQ(b->sink.n, 1);
	CHECK(same_but_tag(b->sink.frame[0], b->sink.len[0], fbuf, 64, 7, 220));
	CHECK_EQ(rc(b, 0, DMC_DECOUPLED), 0);
	board_free(b);
}

static void test_control(void)
{
	struct board *b = board_new(2, 8, 1 << 20);
	char out[4096];
	dm_control(&b->m, "route add 100 r0 200", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	dm_control(&b->m, "route add 101 r1 -", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	dm_control(&b->m, "route add 4095 r1 7", out, sizeof(out));
	CHECK(!strncmp(out, "error", 5));
	dm_control(&b->m, "route add 102 nosuch 7", out, sizeof(out));
	CHECK(!strncmp(out, "error no region", 15));
	dm_control(&b->m, "routes", out, sizeof(out));
	CHECK(!strcmp(out, "route 100 r0 200\nroute 101 r1 -\nok\n"));
	dm_control(&b->m, "route del 101", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	dm_control(&b->m, "route del 101", out, sizeof(out));
	CHECK(!strncmp(out, "error", 5));
	dm_control(&b->m, "decouple r1", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	dm_control_dump_state(&b->m, out, sizeof(out));
	CHECK(!strcmp(out, "route add 100 r0 200\ndecouple r1\n"));
	dm_control(&b->m, "regions", out, sizeof(out));
	CHECK(strstr(out, "region r1 1 healthy 1 decoupled 1 ring 8 slot 9216\n") != NULL);
	dm_control(&b->m, "couple r1", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	CHECK_EQ(dm_control(&b->m, "stop", out, sizeof(out)), 1);
	dm_control(&b->m, "bogus", out, sizeof(out));
	CHECK(!strncmp(out, "error", 5));
	board_free(b);
}

/* ---- a module behind the DMA (sgemu --module's hook) ---------------------- */
struct fake_module {
	uint8_t pkt[64][10000];
	uint32_t len[64];
	unsigned in, ran, out;   /* pushed, run through, pulled */
	unsigned runs, flushes;
};

static void fm_push(void *ctx, const uint8_t *d, uint32_t len)
{
	struct fake_module *m = ctx;
	memcpy(m->pkt[m->in % 64], d, len);
	m->len[m->in % 64] = len;
	m->in++;
}

static int fm_run(void *ctx)
{
	struct fake_module *m = ctx;
	/* the "module": complements every byte after the MAC addresses */
	for (; m->ran < m->in; m->ran++)
		for (uint32_t i = 12; i < m->len[m->ran % 64]; i++)
			m->pkt[m->ran % 64][i] ^= 0xFF;
	m->runs++;
	return 1;
}

static uint32_t fm_held(void *ctx)
{
	struct fake_module *m = ctx;
	return m->in - m->out;
}

static int64_t fm_pull(void *ctx, uint8_t *buf, uint32_t cap)
{
	struct fake_module *m = ctx;
	if (m->out == m->ran)
		return -1;
	uint32_t len = m->len[m->out % 64];
	m->out++;
	if (len > cap)
		return -2;
	memcpy(buf, m->pkt[(m->out - 1) % 64], len);
	return len;
}

static void fm_flush(void *ctx)
{
	struct fake_module *m = ctx;
	m->ran = m->out = m->in;
	m->flushes++;
}

static void test_module_behind_dma(void)
{
	struct board *b = board_new(1, 16, 1 << 20);
	static struct fake_module fm;
	memset(&fm, 0, sizeof(fm));
	const struct emu_module ops = { &fm, fm_push, fm_run, fm_held, fm_pull, fm_flush };
	CHECK_EQ(sgemu_set_module(&b->e[0], &ops), 0);
	dm_route_add(&b->m, 100, 0, 200);
	static uint8_t want[10000];
	unsigned sent = 0;
	uint32_t sizes[] = { 60, 1514, 9018, 64, 200 };
	for (int round = 0; round < 6; round++) {
		for (unsigned k = 0; k < 5; k++, sent++) {
			uint32_t len = make_frame(fbuf, sizes[k], 2, 100, (uint8_t)sent);
			dm_ingress(&b->m, fbuf, len, -1, len);
		}
		settle(b);
	}
	CHECK_EQ(b->sink.n, sent);
	CHECK_EQ(fm.in, sent);
	CHECK_EQ(fm.out, sent);
	CHECK(fm.runs > 0 && fm.runs <= 2 * sent);
	int same = 1;
	for (unsigned k = 0; k < sent && k < b->sink.n; k++) {
		/* the module saw the frame untagged: its bytes 12.. complemented,
		 * then the mover put the egress tag in front of them */
		uint32_t len = make_frame(fbuf, sizes[k % 5], 2, 100, (uint8_t)k);
		memcpy(want, fbuf, 12);
		want[12] = 0x81;
		want[13] = 0;
		want[14] = (2 << 5) | (200 >> 8);
		want[15] = 200 & 0xFF;
		for (uint32_t i = 16; i < len; i++)
			want[i] = fbuf[i] ^ 0xFF;
		same &= b->sink.len[k] == len && !memcmp(b->sink.frame[k], want, len);
	}
	CHECK(same);
	/* a DMA reset flushes the module's stream data */
	reg_wr(b->win[0], PG021_MM2S + PG021_DMACR, DMACR_RESET);
	sgemu_step(&b->e[0]);
	CHECK_EQ(fm.flushes, 1);
	board_free(b);
}

/* ---- the TPACKET_V2 RX ring, laid out as the kernel writes it --------------- */
struct rxrec {
	unsigned n, refuse_at;   /* refuse (ring full downstream) frame refuse_at */
	int tci[32];
	uint32_t len[32];
	uint8_t first[32];
};

static int rx_cb(void *ctx, const uint8_t *frame, uint32_t len, int tci, uint32_t wire_len)
{
	struct rxrec *r = ctx;
	if (r->n == r->refuse_at) {
		r->refuse_at = ~0u;     /* once */
		return 1;
	}
	if (r->n < 32) {
		r->tci[r->n] = tci;
		r->len[r->n] = wire_len;
		r->first[r->n] = len ? frame[0] : 0;
	}
	r->n++;
	return 0;
}

/* the kernel's side: frame slot i filled, handed to user space */
static void v2_put(struct pktio *p, unsigned i, uint8_t first, uint32_t len, int vlan_tpid,
		   uint16_t tci, int outgoing)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)(p->rx_ring + (size_t)i * p->rx_frame_size);
	memset(h, 0, 128);
	h->tp_mac = 96;
	h->tp_snaplen = h->tp_len = len;
	memset((uint8_t *)h + h->tp_mac, first, len);
	struct sockaddr_ll *sll = (struct sockaddr_ll *)((uint8_t *)h + TPACKET_ALIGN(sizeof(*h)));
	sll->sll_pkttype = outgoing ? PACKET_OUTGOING : PACKET_HOST;
	uint32_t st = TP_STATUS_USER;
	if (vlan_tpid) {
		st |= TP_STATUS_VLAN_VALID | TP_STATUS_VLAN_TPID_VALID;
		h->tp_vlan_tci = tci;
		h->tp_vlan_tpid = (uint16_t)vlan_tpid;
	}
	__atomic_store_n(&h->tp_status, st, __ATOMIC_RELEASE);
}

static uint32_t v2_status(struct pktio *p, unsigned i)
{
	return ((struct tpacket2_hdr *)(p->rx_ring + (size_t)i * p->rx_frame_size))->tp_status;
}

/* An AF_XDP socket's four rings in plain memory, the kernel's side played
 * here: wrap-around of RX and FILL, a refused frame kept, TX chunks running
 * out and coming back through COMPLETION. */
struct fake_ring {
	uint32_t prod, cons, flags;
};

static void fake_xsk_ring(struct xsk_ring *r, struct fake_ring *f, void *desc, uint32_t n)
{
	memset(f, 0, sizeof(*f));
	r->producer = &f->prod;
	r->consumer = &f->cons;
	r->flags = &f->flags;
	r->desc = desc;
	r->size = n;
	r->mask = n - 1;
	r->cached = 0;
}

static int xsk_cb(void *ctx, const uint8_t *frame, uint32_t len)
{
	return rx_cb(ctx, frame, len, -1, len);
}

static void test_xsk_rings(void)
{
	enum { N = 4 };
	struct xsk x;
	memset(&x, 0, sizeof(x));
	x.fd = x.map_fd = x.prog_fd = x.link_fd = -1;
	x.frames = N;
	x.zerocopy = 1;      /* no kick needed: fd -1 is never used */
	x.umem_len = (size_t)XSK_CHUNK * N * 2;
	x.umem = aligned_alloc(4096, x.umem_len);
	struct xdp_desc rxd[N], txd[N];
	uint64_t filld[N], compd[N];
	struct fake_ring frx, ftx, ffill, fcomp;
	fake_xsk_ring(&x.rx, &frx, rxd, N);
	fake_xsk_ring(&x.tx, &ftx, txd, N);
	fake_xsk_ring(&x.fill, &ffill, filld, N);
	fake_xsk_ring(&x.comp, &fcomp, compd, N);
	/* what xsk_open lends: every receive chunk in FILL */
	for (unsigned i = 0; i < N; i++)
		filld[i] = (uint64_t)i * XSK_CHUNK;
	x.fill.cached = ffill.prod = N;
	uint64_t txfree[N];
	for (unsigned i = 0; i < N; i++)
		txfree[i] = (uint64_t)(N + i) * XSK_CHUNK;
	x.tx_free = txfree;
	x.tx_nfree = N;

	struct rxrec r = { .refuse_at = ~0u };
	CHECK(!xsk_rx_ready(&x));
	/* the kernel takes chunks from FILL and writes 3 frames (256 bytes of
	 * headroom into each chunk) */
	unsigned k = 0;   /* the kernel's FILL consumer */
	for (; k < 3; k++) {
		uint64_t a = filld[k % N] + 256;
		memset(x.umem + a, 0xC0 + (int)k, 60);
		rxd[frx.prod % N] = (struct xdp_desc){ .addr = a, .len = 60 + k };
		frx.prod++;
	}
	ffill.cons = k;
	CHECK(xsk_rx_ready(&x));
	r.refuse_at = 2;
	CHECK_EQ(xsk_rx(&x, 16, xsk_cb, &r), 2);      /* the third refused */
	CHECK_EQ(frx.cons, 2);
	CHECK_EQ(r.first[0], 0xC0);
	CHECK_EQ(r.len[1], 61);
	CHECK_EQ(r.tci[1], -1);
	/* both chunks back in FILL, at their base */
	CHECK_EQ(ffill.prod, N + 2);
	CHECK_EQ(filld[N % N], 0 * XSK_CHUNK);
	CHECK_EQ(filld[(N + 1) % N], 1 * XSK_CHUNK);
	CHECK(xsk_rx_ready(&x));
	r.refuse_at = ~0u;
	/* two more frames: the RX ring wraps */
	for (; k < 5; k++) {
		uint64_t a = filld[k % N] + 256;
		memset(x.umem + a, 0xC0 + (int)k, 60);
		rxd[frx.prod % N] = (struct xdp_desc){ .addr = a, .len = 60 };
		frx.prod++;
	}
	ffill.cons = k;
	CHECK_EQ(xsk_rx(&x, 16, xsk_cb, &r), 3);
	CHECK_EQ(r.n, 5);     /* the refused one first */
	CHECK_EQ(r.first[2], 0xC2);
	CHECK_EQ(r.first[3], 0xC3);
	CHECK_EQ(r.first[4], 0xC4);
	CHECK_EQ(frx.cons, 5);
	CHECK_EQ(ffill.prod, N + 5);
	CHECK(!xsk_rx_ready(&x));
	/* the budget */
	for (unsigned i = 0; i < 3; i++, k++) {
		rxd[frx.prod % N] = (struct xdp_desc){ .addr = filld[k % N] + 256, .len = 60 };
		frx.prod++;
	}
	CHECK_EQ(xsk_rx(&x, 2, xsk_cb, &r), 2);
	CHECK_EQ(xsk_rx(&x, 2, xsk_cb, &r), 1);

	/* send: every TX chunk used, then none until the kernel completes */
	uint8_t *bufs[N];
	for (unsigned i = 0; i < N; i++) {
		bufs[i] = xsk_tx_alloc(&x, 64);
		CHECK(bufs[i] != NULL);
		CHECK(bufs[i] >= x.umem + N * XSK_CHUNK);    /* a send chunk */
		xsk_tx_commit(&x, 64 + i);
	}
	CHECK(xsk_tx_alloc(&x, XSK_CHUNK + 1) == NULL);
	CHECK_EQ(ftx.prod, 0);      /* nothing published before a flush */
	/* out of chunks: what is pending is published (kicked) first */
	CHECK(xsk_tx_alloc(&x, 64) == NULL);
	CHECK_EQ(ftx.prod, N);
	xsk_tx_flush(&x);
	CHECK_EQ(ftx.prod, N);
	CHECK_EQ(txd[3].len, 67);
	CHECK_EQ(txd[0].addr, (uint64_t)(bufs[0] - x.umem));
	/* the kernel sends two and completes them: two chunks free again */
	ftx.cons = 2;
	compd[fcomp.prod++ % N] = txd[0].addr;
	compd[fcomp.prod++ % N] = txd[1].addr;
	uint8_t *again = xsk_tx_alloc(&x, 64);
	CHECK(again == bufs[1]);
	CHECK_EQ(fcomp.cons, 2);
	xsk_tx_commit(&x, 64);
	CHECK(xsk_tx_alloc(&x, 64) == bufs[0]);
	xsk_tx_commit(&x, 64);
	CHECK(xsk_tx_alloc(&x, 64) == NULL);
	xsk_tx_flush(&x);
	CHECK_EQ(ftx.prod, N + 2);   /* the TX ring wrapped */
	CHECK_EQ(txd[(N + 1) % N].addr, (uint64_t)(bufs[0] - x.umem));
	free(x.umem);
}

static void test_rx_ring_v2(void)
{
	struct pktio p;
	memset(&p, 0, sizeof(p));
	p.rx_version = PKTIO_RX_V2;
	p.rx_frame_size = 2048;
	p.rx_frame_nr = 4;
	p.rx_ring = aligned_alloc(4096, 4 * 2048);
	memset(p.rx_ring, 0, 4 * 2048);
	struct rxrec r = { .refuse_at = ~0u };
	CHECK(!pktio_rx_ready(&p));
	CHECK_EQ(pktio_rx(&p, 1, rx_cb, &r), 0);
	/* tag in tp_vlan_tci, tag left in the data, 802.1ad outer tag */
	v2_put(&p, 0, 0xA0, 100, ETH_P_8021Q, (5 << 13) | 100, 0);
	v2_put(&p, 1, 0xA1, 64, 0, 0, 0);
	v2_put(&p, 2, 0xA2, 80, ETH_P_8021AD, 100, 0);
	CHECK(pktio_rx_ready(&p));
	CHECK_EQ(pktio_rx(&p, 1, rx_cb, &r), 3);
	CHECK_EQ(r.n, 3);
	CHECK_EQ(r.tci[0], (5 << 13) | 100);
	CHECK_EQ(r.len[0], 100);
	CHECK_EQ(r.first[0], 0xA0);
	CHECK_EQ(r.tci[1], -1);
	CHECK_EQ(r.first[1], 0xA1);
	CHECK_EQ(r.tci[2], -1);      /* 802.1ad: not steered (empty frame) */
	CHECK_EQ(r.len[2], 0);
	for (unsigned i = 0; i < 3; i++)
		CHECK_EQ(v2_status(&p, i), TP_STATUS_KERNEL);
	CHECK(!pktio_rx_ready(&p));
	/* wrap-around, with our own outgoing frame skipped (and released) and
	 * a refused frame kept for the next call */
	v2_put(&p, 3, 0xB3, 60, 0, 0, 1);
	v2_put(&p, 0, 0xB0, 60, 0, 0, 0);
	v2_put(&p, 1, 0xB1, 60, 0, 0, 0);
	r.refuse_at = 4;
	CHECK_EQ(pktio_rx(&p, 1, rx_cb, &r), 2);   /* the outgoing one, B0; B1 refused */
	CHECK_EQ(r.n, 4);
	CHECK_EQ(r.first[3], 0xB0);
	CHECK_EQ(v2_status(&p, 3), TP_STATUS_KERNEL);
	CHECK(v2_status(&p, 1) & TP_STATUS_USER);
	CHECK(pktio_rx_ready(&p));
	CHECK_EQ(pktio_rx(&p, 1, rx_cb, &r), 1);
	CHECK_EQ(r.n, 5);
	CHECK_EQ(r.first[4], 0xB1);
	CHECK_EQ(p.rx_next, 2);
	/* the budget: max_blocks x PKTIO_V2_BATCH frames a call */
	struct pktio q = p;
	q.rx_frame_nr = 2 * PKTIO_V2_BATCH + 8;
	q.rx_ring = aligned_alloc(4096, (size_t)q.rx_frame_nr * 2048);
	q.rx_next = 0;
	for (unsigned i = 0; i < q.rx_frame_nr; i++)
		v2_put(&q, i, (uint8_t)i, 60, 0, 0, 0);
	r.n = 0;
	CHECK_EQ(pktio_rx(&q, 1, rx_cb, &r), PKTIO_V2_BATCH);
	CHECK_EQ(pktio_rx(&q, 2, rx_cb, &r), PKTIO_V2_BATCH + 8);
	CHECK_EQ(q.rx_next, 0);
	free(q.rx_ring);
	free(p.rx_ring);
}

int main(void)
{
	struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "reset_values", test_reset_values },
		{ "loopback_tags", test_loopback_tags },
		{ "ring_wraparound", test_ring_wraparound },
		{ "ring_full", test_ring_full },
		{ "ring_full_holds_then_drops", test_ring_full_holds_then_drops },
		{ "unknown_vlan", test_unknown_vlan },
		{ "oversize_and_jumbo", test_oversize_and_jumbo },
		{ "descriptor_errors", test_descriptor_errors },
		{ "sg_interr_on_completed_descriptor", test_sg_interr_on_completed_descriptor },
		{ "interrupts", test_interrupts },
		{ "decouple", test_decouple },
		{ "control", test_control },
		{ "module_behind_dma", test_module_behind_dma },
		{ "rx_ring_v2", test_rx_ring_v2 },
		{ "xsk_rings", test_xsk_rings },
	};
	for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = failures;
		current = tests[i].name;
		tests[i].fn();
		printf("%s %s\n", failures == before ? "ok  " : "FAIL", tests[i].name);
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
