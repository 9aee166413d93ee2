/* SPDX-License-Identifier: Apache-2.0
 * One region's AXI DMA in scatter-gather mode (see sgdma.h; bits: pg021.h). */
#define _GNU_SOURCE
#include "sgdma.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint32_t desc_phys(const struct sg_dma *d, const struct sg_ring *r,
			  uint32_t i)
{
	return (uint32_t)(d->phys + r->desc_off +
			  (uint64_t)(i & (r->n - 1)) * sizeof(struct pg021_desc));
}

static uint8_t *slot_ptr(const struct sg_dma *d, const struct sg_ring *r,
			 uint32_t i)
{
	return d->buf + r->slot_off + (size_t)(i & (r->n - 1)) * d->slot;
}

static uint32_t slot_phys(const struct sg_dma *d, const struct sg_ring *r,
			  uint32_t i)
{
	return (uint32_t)(d->phys + r->slot_off + (uint64_t)(i & (r->n - 1)) * d->slot);
}

int sg_init(struct sg_dma *d, volatile uint32_t *regs, uint8_t *buf,
	    uint64_t phys, size_t size, uint32_t n, uint32_t slot,
	    unsigned length_width)
{
	memset(d, 0, sizeof(*d));
	d->doorbell_fd = -1;
	d->regs = regs;
	d->buf = buf;
	d->phys = phys;
	d->size = size;
	d->slot = slot ? slot : SG_DEFAULT_SLOT;
	if (d->slot % PG021_DESC_ALIGN) {
		snprintf(d->err, sizeof(d->err), "slot %u is not a multiple of 64", d->slot);
		return -1;
	}
	if (length_width < 8 || length_width > 26) {
		snprintf(d->err, sizeof(d->err), "length width %u outside 8..26 (PG021)",
			 length_width);
		return -1;
	}
	d->len_mask = (1u << length_width) - 1;
	if (d->slot > d->len_mask) {
		snprintf(d->err, sizeof(d->err), "slot %u exceeds the %u-bit length field",
			 d->slot, length_width);
		return -1;
	}
	if (phys % PG021_DESC_ALIGN || phys + size > 0x100000000ull) {
		snprintf(d->err, sizeof(d->err), "buffer at 0x%llx: descriptors need a 64-byte "
			 "aligned buffer below 4 GiB", (unsigned long long)phys);
		return -1;
	}
	size_t per = 2 * (sizeof(struct pg021_desc) + d->slot);
	if (!n) {
		n = SG_MAX_RING;
		while (n > 2 && (size_t)n * per > size)
			n /= 2;
	}
	if (n < 2 || (n & (n - 1)) || n > SG_MAX_RING || (size_t)n * per > size) {
		snprintf(d->err, sizeof(d->err), "ring of %u descriptors (power of two, 2..%u) "
			 "does not fit a %zu-byte buffer with %u-byte slots", n, SG_MAX_RING,
			 size, d->slot);
		return -1;
	}
	d->tx.n = d->rx.n = n;
	d->tx.desc_off = 0;
	d->rx.desc_off = n * sizeof(struct pg021_desc);
	d->tx.slot_off = 2 * n * sizeof(struct pg021_desc);
	d->rx.slot_off = d->tx.slot_off + n * d->slot;
	d->tx_meta = calloc(n, sizeof(uint32_t));
	d->meta_fifo = calloc(n, sizeof(uint32_t));
	if (!d->tx_meta || !d->meta_fifo) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return -1;
	}
	return 0;
}

void sg_free(struct sg_dma *d)
{
	free(d->tx_meta);
	free(d->meta_fifo);
	d->tx_meta = d->meta_fifo = NULL;
}

static void doorbell(struct sg_dma *d);

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* wait until (reg & mask) == want; PG021 gives no bound for a reset, Linux
 * waits XILINX_DMA_LOOP_COUNT polls; we wait 100 ms */
static int wait_reg(struct sg_dma *d, uint32_t off, uint32_t mask, uint32_t want)
{
	double deadline = now_s() + 0.1;
	for (unsigned i = 0;; i++) {
		if ((reg_rd(d->regs, off) & mask) == want)
			return 0;
		if (d->wait_hook)
			d->wait_hook(d->wait_ctx);
		if (i == 0)
			doorbell(d);
		if ((i & 63) == 63) {
			if (now_s() > deadline)
				return -1;
			/* the engine may share our CPU (emulation; a board's
			 * DMA does not need the CPU): let it run, also under
			 * SCHED_FIFO */
			if (!d->wait_hook)
				sched_yield();
		}
	}
}

/* emulation only (see pg021.h): the store before must be visible before the
 * engine's flag is read, and the engine sets its flag before it looks at
 * TAILDESC a last time (both sides: full barrier) */
static void doorbell(struct sg_dma *d)
{
	if (d->doorbell_fd < 0)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&d->regs[SGEMU_ASLEEP_OFF / 4], __ATOMIC_RELAXED))
		return;
	uint32_t v = SGEMU_DOORBELL;
	if (write(d->doorbell_fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		d->doorbells++;
}

static void ring_build(struct sg_dma *d, struct sg_ring *r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		struct pg021_desc *x = sg_desc(d, r, i);
		memset(x, 0, sizeof(*x));
		desc_wr(&x->nxtdesc, desc_phys(d, r, i + 1));
		desc_wr(&x->buffer_address, slot_phys(d, r, i));
	}
	r->prod = r->cons = r->tail_written = 0;
	r->in_packet = 0;
}

void sg_stop(struct sg_dma *d)
{
	if (!d->regs)
		return;
	reg_wr(d->regs, PG021_MM2S + PG021_DMACR, 0);
	reg_wr(d->regs, PG021_S2MM + PG021_DMACR, 0);
	reg_wr(d->regs, PG021_MM2S + PG021_DMACR, DMACR_RESET);
	wait_reg(d, PG021_MM2S + PG021_DMACR, DMACR_RESET, 0);
	d->running = 0;
}

int sg_start(struct sg_dma *d)
{
	d->running = 0;
	/* PG021 DMACR.Reset: either channel's bit resets the whole core, and the
	 * bit reads 0 again when the reset is done (xilinx_dma.c
	 * xilinx_dma_reset() polls XILINX_DMA_DMACR_RESET the same way) */
	reg_wr(d->regs, PG021_MM2S + PG021_DMACR, DMACR_RESET);
	if (wait_reg(d, PG021_MM2S + PG021_DMACR, DMACR_RESET, 0) ||
	    wait_reg(d, PG021_S2MM + PG021_DMACR, DMACR_RESET, 0)) {
		snprintf(d->err, sizeof(d->err), "AXI DMA does not come out of reset");
		return -1;
	}
	ring_build(d, &d->tx);
	ring_build(d, &d->rx);
	d->meta_head = d->meta_tail = d->last_meta = 0;
	/* PG021 "Programming sequence" for SG mode: CURDESC while halted, then
	 * DMACR.RS = 1 (with the interrupt enables), then TAILDESC starts the
	 * fetch.  MM2S raises only errors; S2MM raises IOC for every frame
	 * (IRQThreshold 1): the mover wakes for output, and reaps MM2S
	 * descriptors when it next submits. */
	reg_wr(d->regs, PG021_MM2S + PG021_CURDESC, desc_phys(d, &d->tx, 0));
	reg_wr(d->regs, PG021_MM2S + PG021_CURDESC_MSB, 0);
	reg_wr(d->regs, PG021_S2MM + PG021_CURDESC, desc_phys(d, &d->rx, 0));
	reg_wr(d->regs, PG021_S2MM + PG021_CURDESC_MSB, 0);
	reg_wr(d->regs, PG021_MM2S + PG021_DMACR,
	       DMACR_RS | DMACR_ERR_IRQEN | (1u << DMACR_THRESH_SHIFT));
	reg_wr(d->regs, PG021_S2MM + PG021_DMACR,
	       DMACR_RS | DMACR_IOC_IRQEN | DMACR_ERR_IRQEN | (1u << DMACR_THRESH_SHIFT));
	if (wait_reg(d, PG021_MM2S + PG021_DMASR, DMASR_HALTED, 0) ||
	    wait_reg(d, PG021_S2MM + PG021_DMASR, DMASR_HALTED, 0)) {
		snprintf(d->err, sizeof(d->err), "AXI DMA channels do not run (DMASR "
			 "0x%08x/0x%08x)", reg_rd(d->regs, PG021_MM2S + PG021_DMASR),
			 reg_rd(d->regs, PG021_S2MM + PG021_DMASR));
		return -1;
	}
	/* give the S2MM ring all but one descriptor */
	for (uint32_t i = 0; i < d->rx.n; i++) {
		struct pg021_desc *x = sg_desc(d, &d->rx, i);
		desc_wr(&x->status, 0);
		desc_wr(&x->control, d->slot);
	}
	d->rx.prod = d->rx.n - 1;
	d->rx.tail_written = d->rx.prod;
	reg_wr(d->regs, PG021_S2MM + PG021_TAILDESC_MSB, 0);
	reg_wr(d->regs, PG021_S2MM + PG021_TAILDESC, desc_phys(d, &d->rx, d->rx.prod - 1));
	doorbell(d);
	reg_wr(d->regs, PG021_MM2S + PG021_TAILDESC_MSB, 0);
	d->running = 1;
	return 0;
}

enum sg_submit_result sg_submit(struct sg_dma *d, const uint8_t *a, uint32_t alen,
				const uint8_t *b, uint32_t blen, uint32_t meta)
{
	uint32_t len = alen + blen;
	if (len == 0 || len > d->slot)
		return SG_OVERSIZE;
	if (!sg_tx_space(d)) {
		uint32_t errors;
		sg_tx_reap(d, &errors);
		if (!sg_tx_space(d))
			return SG_FULL;
	}
	uint32_t i = d->tx.prod;
	struct pg021_desc *x = sg_desc(d, &d->tx, i);
	uint8_t *slot = slot_ptr(d, &d->tx, i);
	memcpy(slot, a, alen);
	if (blen)
		memcpy(slot + alen, b, blen);
	desc_wr(&x->status, 0);
	desc_wr(&x->control, len | DESC_CTRL_SOF | DESC_CTRL_EOF);
	d->tx_meta[i & (d->tx.n - 1)] = meta;
	d->tx.prod = i + 1;
	/* the tag FIFO: overwrite the oldest when the module swallows frames */
	uint32_t n = d->tx.n;
	if (d->meta_tail - d->meta_head == n)
		d->meta_head++;
	d->meta_fifo[d->meta_tail++ & (n - 1)] = meta;
	return SG_OK;
}

void sg_tx_flush(struct sg_dma *d)
{
	if (d->tx.prod == d->tx.tail_written || !d->running)
		return;
	d->tx.tail_written = d->tx.prod;
	/* reg_wr: barrier, then the store; the descriptors are visible first */
	reg_wr(d->regs, PG021_MM2S + PG021_TAILDESC, desc_phys(d, &d->tx, d->tx.prod - 1));
	doorbell(d);
}

uint32_t sg_tx_reap(struct sg_dma *d, uint32_t *errors)
{
	uint32_t done = 0;
	*errors = 0;
	while (d->tx.cons != d->tx.prod) {
		struct pg021_desc *x = sg_desc(d, &d->tx, d->tx.cons);
		uint32_t st = desc_rd(&x->status);
		if (!(st & DESC_STS_CMPLT))
			break;
		if (st & DESC_STS_ERR_ALL)
			(*errors)++;
		desc_wr(&x->status, 0);
		d->tx.cons++;
		done++;
	}
	return done;
}

int sg_rx_ready(const struct sg_dma *d)
{
	if (d->rx.cons == d->rx.prod)
		return 0;
	const struct pg021_desc *x = sg_desc(d, &d->rx, d->rx.cons);
	return (desc_rd(&x->status) & DESC_STS_CMPLT) != 0;
}

uint32_t sg_rx_poll(struct sg_dma *d, uint32_t budget, sg_deliver_fn deliver,
		    void *ctx, uint32_t *errors, uint32_t *oversize)
{
	uint32_t done = 0;
	*errors = *oversize = 0;
	while (done < budget && d->rx.cons != d->rx.prod) {
		uint32_t i = d->rx.cons;
		struct pg021_desc *x = sg_desc(d, &d->rx, i);
		uint32_t st = desc_rd(&x->status);
		if (!(st & DESC_STS_CMPLT))
			break;
		uint32_t len = st & d->len_mask;
		if (st & DESC_STS_ERR_ALL) {
			(*errors)++;
			d->rx.in_packet = 0;
		} else if ((st & DESC_STS_RXSOF) && (st & DESC_STS_RXEOF) && !d->rx.in_packet) {
			uint32_t meta = d->last_meta;
			if (d->meta_head != d->meta_tail)
				meta = d->meta_fifo[d->meta_head++ & (d->tx.n - 1)];
			d->last_meta = meta;
			deliver(ctx, slot_ptr(d, &d->rx, i), len, meta);
		} else {
			/* PG021: a packet longer than a descriptor's buffer continues
			 * in the next descriptor (RXSOF on the first, RXEOF on the
			 * last).  Slots hold the largest frame we forward, so such a
			 * packet is oversize: count it once, at its end. */
			if (st & DESC_STS_RXSOF)
				d->rx.in_packet = 1;
			if (st & DESC_STS_RXEOF) {
				d->rx.in_packet = 0;
				(*oversize)++;
				if (d->meta_head != d->meta_tail)
					d->last_meta = d->meta_fifo[d->meta_head++ & (d->tx.n - 1)];
			}
		}
		/* reaped; one more descriptor (the one after the tail) given */
		desc_wr(&x->status, 0);
		d->rx.cons = i + 1;
		struct pg021_desc *y = sg_desc(d, &d->rx, d->rx.prod);
		desc_wr(&y->status, 0);
		desc_wr(&y->control, d->slot);
		d->rx.prod++;
		done++;
	}
	if (d->rx.prod != d->rx.tail_written && d->running) {
		d->rx.tail_written = d->rx.prod;
		reg_wr(d->regs, PG021_S2MM + PG021_TAILDESC, desc_phys(d, &d->rx, d->rx.prod - 1));
		doorbell(d);
	}
	return done;
}

uint32_t sg_check(struct sg_dma *d, uint32_t *mm2s_sr, uint32_t *s2mm_sr)
{
	uint32_t a = reg_rd(d->regs, PG021_MM2S + PG021_DMASR);
	uint32_t b = reg_rd(d->regs, PG021_S2MM + PG021_DMASR);
	if (mm2s_sr)
		*mm2s_sr = a;
	if (s2mm_sr)
		*s2mm_sr = b;
	uint32_t err = (a | b) & DMASR_ERR_ALL;
	if (!err && d->running && ((a | b) & DMASR_HALTED))
		err = DMASR_HALTED;
	return err;
}

void sg_ack_irq(struct sg_dma *d)
{
	uint32_t a = reg_rd(d->regs, PG021_MM2S + PG021_DMASR) & DMASR_IRQ_ALL;
	uint32_t b = reg_rd(d->regs, PG021_S2MM + PG021_DMASR) & DMASR_IRQ_ALL;
	if (a)
		reg_wr(d->regs, PG021_MM2S + PG021_DMASR, a);
	if (b)
		reg_wr(d->regs, PG021_S2MM + PG021_DMASR, b);
}
