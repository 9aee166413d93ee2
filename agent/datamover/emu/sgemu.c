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
 * The emulated AXI DMA (scatter-gather, PG021) with a loopback module; see
 * sgemu.h.  Register and descriptor bits: ../src/pg021.h. */
#define _GNU_SOURCE
#include "sgemu.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void chan_reset(struct emu_chan *c)
{
	uint32_t base = c->base;
	memset(c, 0, sizeof(*c));
	c->base = base;
	c->dmacr = DMACR_RESET_VALUE;
	c->dmasr = DMASR_RESET_VALUE;
	c->thresh_cnt = 1;
}

/* PG021 DMACR.Reset: "setting either MM2S_DMACR.Reset = 1 or
 * S2MM_DMACR.Reset = 1 resets the entire AXI DMA engine"; the stream data in
 * flight is lost, and the emulated module (which shares the region's reset)
 * is emptied. */
static void core_reset(struct sgemu *e)
{
	chan_reset(&e->ch[0]);
	chan_reset(&e->ch[1]);
	e->fifo_head = e->fifo_tail = 0;
	e->mm2s_len = 0;
	e->mm2s_in_pkt = e->mm2s_too_big = 0;
	e->s2mm_off = 0;
	e->module_busy = 0;
	if (e->module)
		e->module->flush(e->module->ctx);
}

static uint32_t visible(const struct sgemu *e, uint32_t off)
{
	const struct emu_chan *c = &e->ch[off >= PG021_S2MM];
	switch (off - c->base) {
	case PG021_DMACR:
		return c->dmacr;
	case PG021_DMASR:
		/* IRQThresholdSts 23:16 shows the countdown */
		return c->dmasr | ((c->thresh_cnt & 0xFF) << DMASR_IRQTHRESH_SHIFT);
	case PG021_CURDESC:
		return c->curdesc;
	case PG021_CURDESC_MSB:
		return c->curdesc_msb;
	case PG021_TAILDESC:
		return c->taildesc;
	case PG021_TAILDESC_MSB:
		return c->taildesc_msb;
	default:
		return 0;
	}
}

static void halt_with_error(struct emu_chan *c, uint32_t dmasr_err)
{
	/* PG021 DMACR.RS: "cleared by AXI DMA hardware when an error occurs";
	 * DMASR: the error bit, Err_Irq, and Halted once stopped */
	c->dmacr &= ~DMACR_RS;
	c->dmasr |= dmasr_err | DMASR_ERR_IRQ | DMASR_HALTED;
	c->dmasr &= ~DMASR_IDLE;
	c->active = 0;
}

static void on_store(struct sgemu *e, uint32_t off, uint32_t v)
{
	struct emu_chan *c = &e->ch[off >= PG021_S2MM];
	int halted = (c->dmasr & DMASR_HALTED) && !(c->dmacr & DMACR_RS);
	switch (off - c->base) {
	case PG021_DMACR:
		if (v & DMACR_RESET) {
			core_reset(e);
			return;
		}
		{
			uint32_t old = c->dmacr;
			uint32_t keep_thresh = !(v & DMACR_THRESH_MASK);
			/* writable: RS, Keyhole, Cyclic, IRQ enables, threshold,
			 * delay; bit 1 reads 1 */
			c->dmacr = (v & (DMACR_RS | DMACR_KEYHOLE | DMACR_CYCLIC |
					 DMACR_IRQ_ALL | DMACR_THRESH_MASK |
					 DMACR_DELAY_MASK)) | DMACR_RSVD1;
			/* IRQThreshold: "setting a value of 0 has no effect" */
			if (keep_thresh)
				c->dmacr |= old & DMACR_THRESH_MASK;
			if ((c->dmacr ^ old) & DMACR_THRESH_MASK)
				c->thresh_cnt = (c->dmacr & DMACR_THRESH_MASK) >> DMACR_THRESH_SHIFT;
			if ((c->dmacr & DMACR_RS) && !(old & DMACR_RS) &&
			    !(c->dmasr & DMASR_ERR_ALL)) {
				c->dmasr &= ~(DMASR_HALTED | DMASR_IDLE);
				c->next = c->curdesc;
			} else if (!(c->dmacr & DMACR_RS)) {
				c->dmasr |= DMASR_HALTED;
				c->dmasr &= ~DMASR_IDLE;
				c->active = 0;
			}
		}
		return;
	case PG021_DMASR:
		c->dmasr &= ~(v & DMASR_IRQ_ALL);   /* R/WC; the rest is RO */
		return;
	case PG021_CURDESC:
		/* "can only be written ... when the DMA Engine is Halted" */
		if (halted)
			c->curdesc = v & PG021_DESC_ADDR_MASK;
		return;
	case PG021_CURDESC_MSB:
		if (halted)
			c->curdesc_msb = v;
		return;
	case PG021_TAILDESC:
		c->taildesc = v & PG021_DESC_ADDR_MASK;
		/* "writing to TAILDESC_PTR ... has no effect" while halted */
		if (c->dmacr & DMACR_RS && !(c->dmasr & DMASR_HALTED)) {
			c->active = 1;
			c->dmasr &= ~DMASR_IDLE;
		}
		return;
	case PG021_TAILDESC_MSB:
		c->taildesc_msb = v;
		return;
	default:
		return;
	}
}

/* publish every register's value; a store racing us is applied first */
static void publish(struct sgemu *e)
{
	static const uint32_t regs[] = {
		0x00, 0x04, 0x08, 0x0C, 0x10, 0x14,
		0x30, 0x34, 0x38, 0x3C, 0x40, 0x44,
	};
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		uint32_t off = regs[i];
		for (;;) {
			uint32_t want = visible(e, off);
			uint32_t exp = e->seen[off / 4];
			if (want == exp)
				break;
			if (__atomic_compare_exchange_n(&e->win[off / 4], &exp, want, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				e->seen[off / 4] = want;
				break;
			}
			/* the mover stored `exp` meanwhile */
			e->seen[off / 4] = exp;
			on_store(e, off, exp);
		}
	}
}

/* stores since the last pass, in the order PG021's sequence allows */
static int poll_stores(struct sgemu *e)
{
	static const uint32_t order[] = {
		0x0C, 0x08, 0x3C, 0x38,     /* CURDESC (while halted) */
		0x00, 0x30,                 /* DMACR */
		0x04, 0x34,                 /* DMASR W1C */
		0x14, 0x10, 0x44, 0x40,     /* TAILDESC: starts the fetch */
	};
	int n = 0;
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint32_t off = order[i];
		uint32_t v = __atomic_load_n(&e->win[off / 4], __ATOMIC_ACQUIRE);
		if (v != e->seen[off / 4]) {
			e->seen[off / 4] = v;
			on_store(e, off, v);
			n++;
		}
	}
	return n;
}

int sgemu_init(struct sgemu *e, volatile uint32_t *win, uint8_t *buf,
	       uint64_t phys, size_t size, unsigned length_width)
{
	memset(e, 0, sizeof(*e));
	if (length_width < 8 || length_width > 26)
		return -1;
	e->win = win;
	e->buf = buf;
	e->phys = phys;
	e->size = size;
	e->len_mask = (1u << length_width) - 1;
	e->fifo = calloc(EMU_FIFO_PKTS, EMU_MAX_PKT);
	if (!e->fifo)
		return -1;
	e->ch[0].base = PG021_MM2S;
	e->ch[1].base = PG021_S2MM;
	e->irq_enabled = 1;
	e->now_ns = mono_ns;
	e->sg_clock_hz = 100000000;
	core_reset(e);
	for (unsigned off = 0; off < sizeof(e->seen); off += 4) {
		__atomic_store_n(&win[off / 4], 0, __ATOMIC_RELEASE);
		e->seen[off / 4] = 0;
	}
	publish(e);
	return 0;
}

void sgemu_free(struct sgemu *e)
{
	free(e->fifo);
	free(e->mm2s_pkt);
	e->fifo = NULL;
	e->mm2s_pkt = NULL;
}

int sgemu_set_module(struct sgemu *e, const struct emu_module *m)
{
	if (!e->mm2s_pkt && !(e->mm2s_pkt = malloc(EMU_MAX_PKT)))
		return -1;
	e->module = m;
	return 0;
}

/* frames in the FIFO (the module's output queue, or the loopback) */
static uint32_t fifo_used(const struct sgemu *e)
{
	return e->fifo_tail - e->fifo_head;
}

/* room for one more MM2S packet: with a module, what it holds and what
 * waits for S2MM are bounded together */
static int mm2s_room(const struct sgemu *e)
{
	if (!e->module)
		return fifo_used(e) < EMU_FIFO_PKTS;
	return e->module->held(e->module->ctx) + fifo_used(e) < EMU_FIFO_PKTS;
}

/* run the module over what MM2S pushed, move its output into the FIFO */
static int run_module(struct sgemu *e)
{
	const struct emu_module *m = e->module;
	int n = 0;
	if (!m)
		return 0;
	if (e->module_busy) {
		n += m->run(m->ctx);
		e->module_busy = 0;
	}
	while (fifo_used(e) < EMU_FIFO_PKTS) {
		uint32_t slot = e->fifo_tail % EMU_FIFO_PKTS;
		int64_t len = m->pull(m->ctx, e->fifo[slot], EMU_MAX_PKT);
		if (len == -1)
			break;
		n++;
		if (len < 0) {
			e->module_drops++;
			continue;
		}
		e->fifo_len[slot] = (uint32_t)len;
		e->fifo_tail++;
	}
	return n;
}

/* a completed packet (EOF): IRQThreshold countdown, else the delay timer */
static void ioc_event(struct sgemu *e, struct emu_chan *c)
{
	c->packets++;
	if (c->thresh_cnt > 1) {
		c->thresh_cnt--;
		uint32_t delay = (c->dmacr & DMACR_DELAY_MASK) >> DMACR_DELAY_SHIFT;
		if (delay)
			c->dly_deadline = e->now_ns() +
				(uint64_t)delay * 125u * 1000000000ull / e->sg_clock_hz;
		return;
	}
	c->dmasr |= DMASR_IOC_IRQ;
	c->thresh_cnt = (c->dmacr & DMACR_THRESH_MASK) >> DMACR_THRESH_SHIFT;
	if (!c->thresh_cnt)
		c->thresh_cnt = 1;
	c->dly_deadline = 0;
}

/* fetch the descriptor at c->next: NULL after an error (channel halted) */
static volatile struct pg021_desc *fetch(struct sgemu *e, struct emu_chan *c)
{
	uint64_t a = c->next;
	if (c->next % PG021_DESC_ALIGN || a < e->phys ||
	    a + sizeof(struct pg021_desc) > e->phys + e->size) {
		/* SGDecErr: the descriptor address decodes to nothing */
		c->curdesc = c->next;
		halt_with_error(c, DMASR_SGDECERR);
		return NULL;
	}
	volatile struct pg021_desc *d = (volatile struct pg021_desc *)(e->buf + (a - e->phys));
	c->curdesc = c->next;
	if (desc_rd(&d->status) & DESC_STS_CMPLT) {
		/* SGIntErr: "a descriptor with the Complete bit already set
		 * is fetched" */
		halt_with_error(c, DMASR_SGINTERR);
		return NULL;
	}
	return d;
}

/* the buffer a descriptor names, or NULL (DMADecErr written back) */
static uint8_t *buffer_of(struct sgemu *e, struct emu_chan *c,
			  volatile struct pg021_desc *d, uint32_t len)
{
	uint64_t a = desc_rd(&d->buffer_address);
	if (desc_rd(&d->buffer_address_msb) || a < e->phys || a + len > e->phys + e->size) {
		desc_wr(&d->status, DESC_STS_DMADECERR);
		halt_with_error(c, DMASR_DMADECERR);
		return NULL;
	}
	return e->buf + (a - e->phys);
}

static void advance(struct emu_chan *c, volatile struct pg021_desc *d)
{
	c->descs++;
	if (c->curdesc == c->taildesc) {
		/* PG021 DMASR.Idle: "the SG Engine has reached the tail pointer
		 * ... and all queued descriptors have been processed" */
		c->active = 0;
		c->dmasr |= DMASR_IDLE;
	}
	c->next = desc_rd(&d->nxtdesc) & PG021_DESC_ADDR_MASK;
}

static int run_mm2s(struct sgemu *e)
{
	struct emu_chan *c = &e->ch[0];
	int n = 0;
	while (n < EMU_BATCH && c->active && (c->dmacr & DMACR_RS)) {
		/* backpressure: a new packet needs room in the module */
		if (!e->mm2s_in_pkt && !mm2s_room(e))
			break;
		volatile struct pg021_desc *d = fetch(e, c);
		if (!d)
			break;
		uint32_t ctrl = desc_rd(&d->control);
		uint32_t len = ctrl & e->len_mask;
		if (len == 0) {
			/* DMAIntErr: "the buffer length specified in the fetched
			 * descriptor is set to 0" */
			desc_wr(&d->status, DESC_STS_DMAINTERR);
			halt_with_error(c, DMASR_DMAINTERR);
			break;
		}
		uint8_t *src = buffer_of(e, c, d, len);
		if (!src)
			break;
		if (ctrl & DESC_CTRL_SOF) {
			e->mm2s_in_pkt = 1;
			e->mm2s_len = 0;
			e->mm2s_too_big = 0;
		}
		if (e->mm2s_in_pkt) {
			if (e->mm2s_len + len > EMU_MAX_PKT)
				e->mm2s_too_big = 1;
			else
				memcpy((e->module ? e->mm2s_pkt : e->fifo[e->fifo_tail % EMU_FIFO_PKTS]) +
				       e->mm2s_len, src, len);
			e->mm2s_len += len;
		}
		desc_wr(&d->status, DESC_STS_CMPLT | (len & DESC_STS_LEN_MASK));
		if ((ctrl & DESC_CTRL_EOF) && e->mm2s_in_pkt) {
			if (e->mm2s_too_big) {
				e->module_drops++;
			} else if (e->module) {
				e->module->push(e->module->ctx, e->mm2s_pkt, e->mm2s_len);
				e->module_busy = 1;
			} else {
				e->fifo_len[e->fifo_tail % EMU_FIFO_PKTS] = e->mm2s_len;
				e->fifo_tail++;
			}
			e->mm2s_in_pkt = 0;
			ioc_event(e, c);
		}
		advance(c, d);
		n++;
	}
	return n;
}

static int run_s2mm(struct sgemu *e)
{
	struct emu_chan *c = &e->ch[1];
	int n = 0;
	while (n < EMU_BATCH && c->active && (c->dmacr & DMACR_RS) &&
	       e->fifo_head != e->fifo_tail) {
		volatile struct pg021_desc *d = fetch(e, c);
		if (!d)
			break;
		uint32_t cap = desc_rd(&d->control) & e->len_mask;
		if (cap == 0) {
			desc_wr(&d->status, DESC_STS_DMAINTERR);
			halt_with_error(c, DMASR_DMAINTERR);
			break;
		}
		uint8_t *dst = buffer_of(e, c, d, cap);
		if (!dst)
			break;
		uint32_t slot = e->fifo_head % EMU_FIFO_PKTS;
		uint32_t rem = e->fifo_len[slot] - e->s2mm_off;
		uint32_t k = rem < cap ? rem : cap;
		memcpy(dst, e->fifo[slot] + e->s2mm_off, k);
		/* PG021 S2MM_STATUS: transferred bytes, RXSOF on the packet's first
		 * descriptor, RXEOF on its last, Cmplt */
		uint32_t st = DESC_STS_CMPLT | k;
		if (e->s2mm_off == 0)
			st |= DESC_STS_RXSOF;
		e->s2mm_off += k;
		if (e->s2mm_off == e->fifo_len[slot]) {
			st |= DESC_STS_RXEOF;
			e->fifo_head++;
			e->s2mm_off = 0;
		}
		/* the data is in memory before the status says so */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		desc_wr(&d->status, st);
		if (st & DESC_STS_RXEOF)
			ioc_event(e, c);
		advance(c, d);
		n++;
	}
	return n;
}

static void eval_irq(struct sgemu *e)
{
	for (int i = 0; i < 2; i++) {
		struct emu_chan *c = &e->ch[i];
		if (c->dly_deadline && e->now_ns() >= c->dly_deadline) {
			/* PG021 Dly_Irq: delay timer expired before the threshold */
			c->dmasr |= DMASR_DLY_IRQ;
			c->dly_deadline = 0;
			c->thresh_cnt = (c->dmacr & DMACR_THRESH_MASK) >> DMACR_THRESH_SHIFT;
		}
	}
	/* mm2s_introut / s2mm_introut: a DMASR IRQ bit with its enable; the
	 * board's shell ORs both into the region's UIO interrupt */
	int line = 0;
	for (int i = 0; i < 2; i++)
		line |= (e->ch[i].dmasr & e->ch[i].dmacr & DMASR_IRQ_ALL) != 0;
	if (line && e->irq_enabled) {
		/* uio_pdrv_genirq: count, wake readers, mask until re-armed */
		e->irq_enabled = 0;
		e->irq_count++;
		if (e->irq_fire)
			e->irq_fire(e->irq_ctx, e->irq_count);
	}
}

int sgemu_step(struct sgemu *e)
{
	int work = poll_stores(e);
	work += run_mm2s(e);
	work += run_module(e);
	work += run_s2mm(e);
	eval_irq(e);
	publish(e);
	return work;
}

void sgemu_irqcontrol(struct sgemu *e, uint32_t value)
{
	e->irq_enabled = value != 0;
}

int sgemu_inject(struct sgemu *e, const uint8_t *data, uint32_t len)
{
	if (len > EMU_MAX_PKT || e->fifo_tail - e->fifo_head == EMU_FIFO_PKTS)
		return -1;
	memcpy(e->fifo[e->fifo_tail % EMU_FIFO_PKTS], data, len);
	e->fifo_len[e->fifo_tail % EMU_FIFO_PKTS] = len;
	e->fifo_tail++;
	return 0;
}
