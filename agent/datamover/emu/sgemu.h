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
 * An emulated AXI DMA in scatter-gather mode (PG021), register-exact, over a
 * shared-memory register window and DMA buffer, with a loopback "module"
 * behind it (MM2S packets come back on S2MM).  The mover maps the same two
 * files exactly as it maps /dev/uioN and /dev/udmabufN on a board.
 *
 * How a store is seen: the engine cannot trap the mover's stores into a
 * shared mapping, so it keeps, per register, the last value it published and
 * treats any other value found there as a store of that value (applying the
 * register's semantics: DMASR bits 14:12 write-1-to-clear, CURDESC writable
 * only while halted, DMACR.Reset self-clearing, TAILDESC starting the fetch),
 * then publishes the register's real value with a compare-and-swap (so a
 * store racing the publication is never lost).  Stores seen in one pass are
 * applied in the order CURDESC, DMACR, DMASR, TAILDESC, which is the only
 * order PG021's programming sequence allows.  A store of the value a
 * register already shows is invisible; for the mover's accesses that is
 * always a no-op on hardware too (see README.md, "The emulated engine").
 */
#ifndef NOVA_FPGA_SGEMU_H
#define NOVA_FPGA_SGEMU_H

#include <stddef.h>
#include <stdint.h>

#include "../src/pg021.h"

#define EMU_FIFO_PKTS 256      /* packets the module holds (backpressure beyond) */
#define EMU_MAX_PKT   16384    /* largest packet the module takes */
#define EMU_BATCH     64       /* descriptors per channel per step */

/* A module behind the DMA other than the built-in loopback FIFO (the
 * Verilated modules, emu/module.c; tests: a fake).  MM2S packets are pushed
 * into it whole; what it sends is pulled into the FIFO that feeds S2MM. */
struct emu_module {
	void *ctx;
	/* take a whole packet (the stream's TLAST beat) */
	void (*push)(void *ctx, const uint8_t *data, uint32_t len);
	/* run it until what was pushed went through; returns work done */
	int (*run)(void *ctx);
	/* packets pushed or sent and not yet pulled (backpressure) */
	uint32_t (*held)(void *ctx);
	/* the oldest output packet into buf: its length, -1 none, -2 larger
	 * than cap (then dropped) */
	int64_t (*pull)(void *ctx, uint8_t *buf, uint32_t cap);
	/* the DMA's reset: the stream data in flight is lost (the module's
	 * own state, e.g. its registers, is not: its reset is the region's) */
	void (*flush)(void *ctx);
};

struct emu_chan {
	uint32_t base;         /* 0x00 MM2S, 0x30 S2MM */
	uint32_t dmacr, dmasr, curdesc, taildesc;
	uint32_t curdesc_msb, taildesc_msb;
	uint32_t next;         /* next descriptor to fetch */
	int active;            /* a TAILDESC ahead of what was processed */
	uint32_t thresh_cnt;   /* IRQThreshold countdown */
	uint64_t dly_deadline; /* ns; 0: delay timer stopped */
	uint64_t descs, packets;
};

struct sgemu {
	volatile uint32_t *win;
	uint8_t *buf;
	uint64_t phys;
	size_t size;
	uint32_t len_mask;
	uint32_t seen[0x48 / 4];
	struct emu_chan ch[2];
	/* the module: a FIFO of packets */
	uint8_t (*fifo)[EMU_MAX_PKT];
	uint32_t fifo_len[EMU_FIFO_PKTS];
	uint32_t fifo_head, fifo_tail;
	uint32_t mm2s_len;     /* bytes of the packet MM2S is assembling */
	int mm2s_in_pkt, mm2s_too_big;
	uint32_t s2mm_off;     /* bytes of the head packet already written */
	uint64_t module_drops; /* packets larger than EMU_MAX_PKT */
	const struct emu_module *module; /* NULL: the loopback FIFO */
	uint8_t *mm2s_pkt;     /* with a module: the packet MM2S assembles */
	int module_busy;       /* pushed since the module last ran */
	/* UIO semantics (uio_pdrv_genirq): the interrupt is masked after it
	 * fires until irqcontrol(1); the count counts interrupts taken */
	int irq_enabled;
	uint32_t irq_count;
	void (*irq_fire)(void *ctx, uint32_t count);
	void *irq_ctx;
	uint64_t (*now_ns)(void);
	/* SG clock for IRQDelay: one unit is 125 clocks (PG021 DMACR.IRQDelay) */
	uint32_t sg_clock_hz;
};

/* Initialise: reset values published into the window.  length_width: the
 * core's c_sg_length_width. */
int sgemu_init(struct sgemu *e, volatile uint32_t *win, uint8_t *buf,
	       uint64_t phys, size_t size, unsigned length_width);
void sgemu_free(struct sgemu *e);
/* One pass: stores seen, descriptors processed, interrupt evaluated.
 * Returns the work done (0: nothing to do). */
int sgemu_step(struct sgemu *e);
/* put a module behind the DMA (before the first step) */
int sgemu_set_module(struct sgemu *e, const struct emu_module *m);
/* UIO write(): 1 unmasks the interrupt, 0 masks it */
void sgemu_irqcontrol(struct sgemu *e, uint32_t value);
/* the module emits a packet of its own (tests: S2MM packets spanning
 * descriptors); returns 0, or -1 when the FIFO is full */
int sgemu_inject(struct sgemu *e, const uint8_t *data, uint32_t len);

#endif
