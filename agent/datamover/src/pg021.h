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
 * Xilinx AXI DMA v7.1 in scatter-gather mode: registers, bits and the
 * descriptor layout.  Every value below is from the AXI DMA LogiCORE IP
 * Product Guide (PG021 v7.1), "Scatter/Gather Mode Register Address Map",
 * "MM2S_DMACR", "MM2S_DMASR", "Scatter Gather Descriptor", "MM2S_CONTROL",
 * "S2MM_STATUS"; the same values are in Linux drivers/dma/xilinx/xilinx_dma.c
 * (XILINX_DMA_REG_*, XILINX_DMA_DMACR_*, XILINX_DMA_DMASR_*,
 * XILINX_DMA_BD_SOP/EOP, XILINX_DMA_BD_COMP_MASK, XILINX_DMA_RX_CHANNEL_OFFSET)
 * as cited per line.  The emulated engine (emu/) and the mover share this file,
 * so the emulation and the driver cannot disagree on a bit.
 */
#ifndef NOVA_FPGA_PG021_H
#define NOVA_FPGA_PG021_H

#include <stdint.h>

/* --- register map (PG021 "Scatter/Gather Mode Register Address Map") ---- */
#define PG021_MM2S            0x00u  /* MM2S channel registers start at 00h */
#define PG021_S2MM            0x30u  /* S2MM at 30h (xilinx_dma.c:
                                        XILINX_DMA_RX_CHANNEL_OFFSET 0x30) */
/* offsets inside a channel's block */
#define PG021_DMACR           0x00u  /* MM2S_DMACR 00h / S2MM_DMACR 30h */
#define PG021_DMASR           0x04u  /* MM2S_DMASR 04h / S2MM_DMASR 34h */
#define PG021_CURDESC         0x08u  /* MM2S_CURDESC 08h / S2MM_CURDESC 38h */
#define PG021_CURDESC_MSB     0x0Cu  /* 0Ch / 3Ch */
#define PG021_TAILDESC        0x10u  /* MM2S_TAILDESC 10h / S2MM_TAILDESC 40h */
#define PG021_TAILDESC_MSB    0x14u  /* 14h / 44h */
#define PG021_SG_CTL          0x2Cu  /* multichannel mode only */
/* Emulation only (never touched on a board): the emulated engine
 * (emu/, nova-fpga-sgemu) cannot see stores, so it polls the window; when it
 * has nothing to do it sleeps and says so in this word, beyond the AXI DMA's
 * registers.  A mover whose interrupt node is the engine's socket (not a
 * /dev/uioN) reads it after each TAILDESC store and, when set, rings the
 * engine with a 4-byte SGEMU_DOORBELL write on that socket, so the engine
 * need neither spin nor wake on a timer to see new descriptors. */
#define SGEMU_ASLEEP_OFF   0x1000u
#define SGEMU_DOORBELL     0xD00Bu
/* emulation only: with a Verilated module (nova-fpga-sgemu --module), the
 * engine publishes 64-bit counts here for the benchmark: simulated clock
 * cycles, frames into and out of the module */
#define SGEMU_STATS_OFF    0x1100u
#define PG021_WINDOW_BYTES    0x10000u /* the AXI-Lite window the shell maps
                                          (64 KiB address range) */

/* --- DMACR (PG021 "MM2S_DMACR (Offset 00h)", same bits for S2MM 30h) ---- */
#define DMACR_RS              (1u << 0)   /* Run/Stop */
#define DMACR_RSVD1           (1u << 1)   /* reserved, "always read as 1" */
#define DMACR_RESET           (1u << 2)   /* soft reset; "setting either
                                             MM2S_DMACR.Reset or S2MM_DMACR.Reset
                                             resets the entire AXI DMA";
                                             self-clears when done */
#define DMACR_KEYHOLE         (1u << 3)
#define DMACR_CYCLIC          (1u << 4)   /* Cyclic BD enable (xilinx_dma.c
                                             XILINX_DMA_CR_CYCLIC_BD_EN_MASK) */
#define DMACR_IOC_IRQEN       (1u << 12)
#define DMACR_DLY_IRQEN       (1u << 13)
#define DMACR_ERR_IRQEN       (1u << 14)
#define DMACR_IRQ_ALL         (7u << 12)  /* xilinx_dma.c XILINX_DMA_DMAXR_ALL_IRQ_MASK
                                             GENMASK(14, 12) */
#define DMACR_THRESH_SHIFT    16          /* IRQThreshold 23:16 (xilinx_dma.c
                                             XILINX_DMA_CR_COALESCE_SHIFT) */
#define DMACR_THRESH_MASK     (0xFFu << 16)
#define DMACR_DELAY_SHIFT     24          /* IRQDelay 31:24 (XILINX_DMA_CR_DELAY_SHIFT) */
#define DMACR_DELAY_MASK      (0xFFu << 24)
/* value after reset: IRQThreshold 01h, bit 1 reads 1 (PG021 default values) */
#define DMACR_RESET_VALUE     (DMACR_RSVD1 | (1u << DMACR_THRESH_SHIFT))

/* --- DMASR (PG021 "MM2S_DMASR (Offset 04h)"; xilinx_dma.c XILINX_DMA_DMASR_*) */
#define DMASR_HALTED          (1u << 0)
#define DMASR_IDLE            (1u << 1)
#define DMASR_SGINCLD         (1u << 3)   /* 1 when C_INCLUDE_SG = 1 */
#define DMASR_DMAINTERR       (1u << 4)
#define DMASR_DMASLVERR       (1u << 5)
#define DMASR_DMADECERR       (1u << 6)
#define DMASR_SGINTERR        (1u << 8)
#define DMASR_SGSLVERR        (1u << 9)
#define DMASR_SGDECERR        (1u << 10)
#define DMASR_IOC_IRQ         (1u << 12)  /* write 1 to clear */
#define DMASR_DLY_IRQ         (1u << 13)  /* write 1 to clear */
#define DMASR_ERR_IRQ         (1u << 14)  /* write 1 to clear */
#define DMASR_IRQ_ALL         (7u << 12)
#define DMASR_ERR_ALL         (DMASR_DMAINTERR | DMASR_DMASLVERR | DMASR_DMADECERR | \
                               DMASR_SGINTERR | DMASR_SGSLVERR | DMASR_SGDECERR)
#define DMASR_IRQTHRESH_SHIFT 16          /* IRQThresholdSts 23:16 (RO) */
#define DMASR_IRQDELAY_SHIFT  24          /* IRQDelaySts 31:24 (RO) */
/* after reset an SG-mode channel reads Halted | SGIncld */
#define DMASR_RESET_VALUE     (DMASR_HALTED | DMASR_SGINCLD)

/* --- descriptor (PG021 "Scatter Gather Descriptor", non-multichannel) ---- */
#define PG021_DESC_ALIGN      0x40u       /* "16 32-bit word alignment";
                                             xilinx_dma.c/xaxidma_hw.h
                                             XAXIDMA_BD_MINIMUM_ALIGNMENT 0x40 */
#define PG021_DESC_ADDR_MASK  0xFFFFFFC0u /* CURDESC bits 5:0 reserved */

struct pg021_desc {                 /* one descriptor, 64 bytes */
	uint32_t nxtdesc;           /* 00h NXTDESC */
	uint32_t nxtdesc_msb;       /* 04h NXTDESC_MSB */
	uint32_t buffer_address;    /* 08h BUFFER_ADDRESS */
	uint32_t buffer_address_msb;/* 0Ch BUFFER_ADDRESS_MSB */
	uint32_t reserved[2];       /* 10h, 14h */
	uint32_t control;           /* 18h CONTROL */
	uint32_t status;            /* 1Ch STATUS */
	uint32_t app[5];            /* 20h..30h APP0..APP4 */
	uint32_t sw[3];             /* 34h..3Ch: padding to the 64-byte alignment,
	                               never read by the DMA (software use) */
};
_Static_assert(sizeof(struct pg021_desc) == PG021_DESC_ALIGN, "descriptor size");

/* CONTROL (PG021 "MM2S_CONTROL"/"S2MM_CONTROL"; xilinx_dma.c XILINX_DMA_BD_SOP
 * BIT(27), XILINX_DMA_BD_EOP BIT(26)) */
#define DESC_CTRL_LEN_MASK    0x03FFFFFFu /* buffer length 25:0; only the low
                                             c_sg_length_width bits are used */
#define DESC_CTRL_EOF         (1u << 26)  /* TXEOF */
#define DESC_CTRL_SOF         (1u << 27)  /* TXSOF */

/* STATUS (PG021 "MM2S_STATUS"/"S2MM_STATUS"; xilinx_dma.c
 * XILINX_DMA_BD_STS_ALL_MASK GENMASK(31,28), XILINX_DMA_BD_COMP_MASK BIT(31)) */
#define DESC_STS_LEN_MASK     0x03FFFFFFu /* transferred bytes 25:0 */
#define DESC_STS_RXEOF        (1u << 26)  /* S2MM only */
#define DESC_STS_RXSOF        (1u << 27)  /* S2MM only */
#define DESC_STS_DMAINTERR    (1u << 28)
#define DESC_STS_DMASLVERR    (1u << 29)
#define DESC_STS_DMADECERR    (1u << 30)
#define DESC_STS_CMPLT        (1u << 31)
#define DESC_STS_ERR_ALL      (DESC_STS_DMAINTERR | DESC_STS_DMASLVERR | DESC_STS_DMADECERR)

/* c_sg_length_width: 8..26 bits.  The shell's AXI DMA is built with 23 (the
 * Linux driver's XILINX_DMA_MAX_TRANS_LEN GENMASK(22, 0)); 14 bits (16,383 B)
 * are enough for a 9,018-byte frame. */
#define PG021_DEFAULT_LENGTH_WIDTH 23

/* --- MMIO accessors -----------------------------------------------------
 * A register access is one aligned 32-bit load or store (PG021: AXI4-Lite,
 * 32-bit registers).  Descriptors live in uncached u-dma-buf memory; the
 * stores that build them must be visible to the DMA before the TAILDESC store
 * that starts it, which is what Linux's writel() guarantees with its wmb()
 * (ARM: "dsb st") before the store.  dm_wmb()/dm_rmb() do the same here; on
 * x86 (the emulator) the fences are compiler/TSO fences.
 */
#if defined(__arm__) || defined(__aarch64__)
#define dm_wmb() __asm__ __volatile__("dsb st" ::: "memory")
#define dm_rmb() __asm__ __volatile__("dsb sy" ::: "memory")
#else
#define dm_wmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define dm_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

static inline uint32_t reg_rd(volatile uint32_t *win, uint32_t off)
{
	uint32_t v = __atomic_load_n(&win[off / 4], __ATOMIC_ACQUIRE);
	dm_rmb();
	return v;
}

static inline void reg_wr(volatile uint32_t *win, uint32_t off, uint32_t v)
{
	dm_wmb();
	__atomic_store_n(&win[off / 4], v, __ATOMIC_RELEASE);
}

/* descriptor words: uncached memory the DMA also writes */
static inline uint32_t desc_rd(const volatile uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static inline void desc_wr(volatile uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELAXED);
}

#endif
