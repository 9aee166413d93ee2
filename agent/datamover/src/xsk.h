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
 * The board's data interface through an AF_XDP socket
 * (Documentation/networking/af_xdp.rst), the option for a NIC driver with
 * XDP (`--io xdp`):
 *  - one UMEM of fixed chunks (XSK_CHUNK bytes, one frame each), half of
 *    them lent to the kernel through the FILL ring for receiving, half
 *    ours for sending;
 *  - receive: the RX ring's descriptors, handed over one by one as the
 *    driver (or, in generic mode, the stack) wrote them: no block timer and
 *    no system call per frame; a consumed chunk goes back to FILL;
 *  - send: TX ring descriptors, one sendto() a batch kick (only when the
 *    kernel asks for it: XDP_USE_NEED_WAKEUP), chunks back through the
 *    COMPLETION ring;
 *  - steering into the socket: a six-instruction XDP program of our own
 *    (bpf_redirect_map into an XSKMAP by the frame's RX queue, XDP_PASS when
 *    no socket is there), loaded with bpf(2) and attached through a BPF link,
 *    so it goes away with the process; no libbpf or libxdp needed.
 * The 802.1Q tag stays in the frame's data (XDP runs before the stack takes it
 * off; a NIC with VLAN stripping must have it off: `ethtool -K IF rxvlan off`).
 * A frame must fit one chunk (XSK_MAX_FRAME bytes): larger frames need AF_XDP
 * multi-buffer, which this does not use; the kernel drops them and they are
 * counted as kernel drops.
 */
#ifndef NOVA_FPGA_XSK_H
#define NOVA_FPGA_XSK_H

#include <stddef.h>
#include <stdint.h>

#define XSK_CHUNK 4096u
/* a chunk less the kernel's XDP_PACKET_HEADROOM (256) */
#define XSK_MAX_FRAME (XSK_CHUNK - 256u)

#define XSK_MODE_AUTO    0   /* native, else generic */
#define XSK_MODE_NATIVE  1   /* the driver's XDP (XDP_FLAGS_DRV_MODE) */
#define XSK_MODE_GENERIC 2   /* the stack's (XDP_FLAGS_SKB_MODE) */

struct xsk_ring {
	uint32_t *producer, *consumer, *flags;
	void *desc;
	uint32_t size, mask;
	uint32_t cached;     /* our producer (FILL, TX) or consumer (RX, COMP) */
	void *map;
	size_t map_len;
};

struct xsk {
	int fd, map_fd, prog_fd, link_fd;
	uint8_t *umem;
	size_t umem_len;
	unsigned frames;          /* chunks a direction */
	struct xsk_ring rx, tx, fill, comp;
	uint64_t *tx_free;        /* stack of free TX chunk addresses */
	unsigned tx_nfree, tx_pending;
	uint64_t last_drops;
	int mode, zerocopy;
};

/* frames: chunks a direction (a power of two); queue: the interface's RX
 * queue to bind */
int xsk_open(struct xsk *x, const char *ifname, unsigned queue, int mode,
	     unsigned frames, char *err, size_t errlen);
void xsk_close(struct xsk *x);

/* pktio.h's interface for one AF_XDP socket (pktio.c dispatches to it);
 * the frame callback has no tag argument: XDP leaves the tag in the data */
typedef int (*xsk_rx_fn)(void *ctx, const uint8_t *frame, uint32_t len);
/* up to max frames; a nonzero return of fn stops there and the frame is
 * offered again next time */
unsigned xsk_rx(struct xsk *x, unsigned max, xsk_rx_fn fn, void *ctx);
int xsk_rx_ready(const struct xsk *x);
uint8_t *xsk_tx_alloc(struct xsk *x, uint32_t len);
void xsk_tx_commit(struct xsk *x, uint32_t len);
void xsk_tx_flush(struct xsk *x);
/* frames the kernel dropped since the last call (XDP_STATISTICS) */
unsigned xsk_kernel_drops(struct xsk *x);

#endif
