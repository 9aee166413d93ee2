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
 * The board's data interface through AF_PACKET memory-mapped rings
 * (Documentation/networking/packet_mmap.rst):
 *  - receive, either of
 *    - TPACKET_V2 (--rx-ring v2): a ring of fixed frames, each handed over as
 *      soon as the kernel wrote it (TP_STATUS_USER in its header): no system
 *      call per frame either, and a frame waits for nothing but the mover;
 *    - TPACKET_V3 (the default): a ring of blocks the kernel fills with many frames and
 *      hands over whole (TP_STATUS_USER in the block header): one wake-up a
 *      block, but a block is handed over only when full or after
 *      retire_blk_tov ms (>= 1), so at low rates a frame waits up to 1 ms;
 *  - send: a second socket with a TPACKET_V2 TX ring (fixed frames): frames
 *    are written into the ring, marked TP_STATUS_SEND_REQUEST, and one
 *    send() per batch hands them all to the kernel.  The TX socket is bound
 *    with protocol 0, so it receives nothing; the RX socket ignores outgoing
 *    frames (PACKET_IGNORE_OUTGOING, and sll_pkttype as a fallback).
 * The kernel may take the 802.1Q tag off a received frame and report it in
 * tp_vlan_tci with TP_STATUS_VLAN_VALID (veth and most drivers do): the
 * callback gets the tag either way.
 * With PKTIO_XDP, both directions go through one AF_XDP socket instead
 * (xsk.h); the tag is then always in the data.
 */
#ifndef NOVA_FPGA_PKTIO_H
#define NOVA_FPGA_PKTIO_H

#include <stddef.h>
#include <stdint.h>

#include "xsk.h"

#define PKTIO_RX_V2 2
#define PKTIO_RX_V3 3
/* AF_XDP both ways instead of the AF_PACKET rings (xsk.h) */
#define PKTIO_XDP   4

struct pktio_conf {
	unsigned rx_version;      /* PKTIO_RX_V3 (default), PKTIO_RX_V2 or PKTIO_XDP */
	unsigned rx_frame_size;   /* V2: bytes per frame (>= 9,018 + headers) */
	unsigned rx_frame_nr;     /* V2: frames in the ring */
	unsigned rx_block_size;   /* V3: bytes (multiple of the page size) */
	unsigned rx_block_nr;
	unsigned rx_tov_ms;       /* retire_blk_tov */
	unsigned tx_frame_size;   /* bytes per TX frame (>= 9,018 + header) */
	unsigned tx_frame_nr;
	int xdp_mode;             /* XSK_MODE_* */
	unsigned xdp_queue;       /* the interface's RX queue to bind */
	unsigned xdp_frames;      /* UMEM chunks a direction (power of two) */
};

struct pktio {
	int rx_fd, tx_fd;
	uint8_t *rx_ring;
	size_t rx_ring_size;
	unsigned rx_version;
	unsigned rx_block_size, rx_block_nr, rx_next;
	unsigned rx_frame_size, rx_frame_nr;  /* V2; rx_next counts frames */
	void *rx_resume_hdr;      /* V3: inside block rx_next, the frame to retry */
	uint32_t rx_resume_idx;
	uint8_t *tx_ring;
	size_t tx_ring_size;
	unsigned tx_frame_size, tx_frame_nr, tx_next, tx_pending;
	uint32_t tx_data_off;
	uint32_t tx_vnet;     /* bytes of virtio_net_hdr before each frame (0: none) */
	struct xsk *xsk;      /* PKTIO_XDP: the AF_XDP socket (rx_fd is its fd) */
};

void pktio_default_conf(struct pktio_conf *c);
int pktio_open(struct pktio *p, const char *ifname, const struct pktio_conf *c,
	       char *err, size_t errlen);
void pktio_close(struct pktio *p);

/* frame callback: tci < 0 when the kernel left the tag in the data (or there
 * was none); wire_len the frame's length before any truncation.  Returns 0
 * when it took the frame, nonzero to be offered the same frame again on the
 * next pktio_rx() (its destination is full for now: the RX ring holds it). */
typedef int (*pktio_rx_fn)(void *ctx, const uint8_t *frame, uint32_t len,
			    int tci, uint32_t wire_len);
/* Process up to max_blocks ready blocks (V2 and XDP: max_blocks x
 * PKTIO_V2_BATCH frames); returns frames seen. */
#define PKTIO_V2_BATCH 32
unsigned pktio_rx(struct pktio *p, unsigned max_blocks, pktio_rx_fn fn, void *ctx);
/* a ready block is waiting (no system call) */
int pktio_rx_ready(const struct pktio *p);

uint8_t *pktio_tx_alloc(struct pktio *p, uint32_t len);
void pktio_tx_commit(struct pktio *p, uint32_t len);
void pktio_tx_flush(struct pktio *p);
/* drops since the last call (PACKET_STATISTICS; XDP_STATISTICS) */
unsigned pktio_kernel_drops(struct pktio *p);

#endif
