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
#include "pktio.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

void pktio_default_conf(struct pktio_conf *c)
{
	/* 32 KiB blocks hold one 9,018-byte frame with room to spare, and fill
	 * (so are handed over) quickly at small frames; 128 of them: 4 MiB */
	/* V3 by default: it sustains 3.6x V2's zero-loss rate at 64 B on a
	 * shared host (README.md, "Data path"); V2 for latency */
	c->rx_version = PKTIO_RX_V3;
	/* a 9,018-byte frame, its tpacket2_hdr and sockaddr_ll: 10 KiB, two a
	 * 5-page block; 2,048 of them (20 MiB) hold 1.4 ms of 64-byte frames
	 * at 1 GbE line rate, and 2,048 frames of any size */
	c->rx_frame_size = 10240;
	c->rx_frame_nr = 2048;
	c->rx_block_size = 1u << 15;
	c->rx_block_nr = 128;
	c->rx_tov_ms = 1;
	c->tx_frame_size = 1u << 14;
	c->tx_frame_nr = 256;
	c->xdp_mode = XSK_MODE_AUTO;
	c->xdp_queue = 0;
	/* 4 MiB a direction: 1,024 frames in flight each way */
	c->xdp_frames = 1024;
}

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

int pktio_open(struct pktio *p, const char *ifname, const struct pktio_conf *c,
	       char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->rx_fd = p->tx_fd = -1;
	if (c->rx_version == PKTIO_XDP) {
		p->xsk = malloc(sizeof(*p->xsk));
		if (!p->xsk)
			return fail(err, errlen, "AF_XDP");
		p->rx_version = PKTIO_XDP;
		if (xsk_open(p->xsk, ifname, c->xdp_queue, c->xdp_mode, c->xdp_frames,
			     err, errlen))
			return -1;
		p->rx_fd = p->xsk->fd;
		return 0;
	}
	unsigned ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return fail(err, errlen, ifname);

	/* receive: created with protocol 0 (nothing queued before the ring
	 * exists), bound to the interface with ETH_P_ALL once it does */
	p->rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->rx_fd < 0)
		return fail(err, errlen, "AF_PACKET socket");
	int v = c->rx_version == PKTIO_RX_V2 ? TPACKET_V2 : TPACKET_V3;
	if (setsockopt(p->rx_fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)))
		return fail(err, errlen, v == TPACKET_V2 ? "PACKET_VERSION TPACKET_V2" :
			    "PACKET_VERSION TPACKET_V3");
	p->rx_version = c->rx_version == PKTIO_RX_V2 ? PKTIO_RX_V2 : PKTIO_RX_V3;
	if (p->rx_version == PKTIO_RX_V2) {
		/* frames must not straddle blocks; a block is whole pages */
		unsigned fsz = TPACKET_ALIGN(c->rx_frame_size), bsz = fsz;
		while (bsz % 4096u)
			bsz += fsz;
		unsigned per = bsz / fsz;
		unsigned nr = (c->rx_frame_nr + per - 1) / per * per;
		struct tpacket_req req = {
			.tp_block_size = bsz,
			.tp_block_nr = nr / per,
			.tp_frame_size = fsz,
			.tp_frame_nr = nr,
		};
		if (setsockopt(p->rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
			return fail(err, errlen, "PACKET_RX_RING (TPACKET_V2)");
		p->rx_frame_size = fsz;
		p->rx_frame_nr = nr;
		p->rx_ring_size = (size_t)fsz * nr;
	} else {
		struct tpacket_req3 r3 = {
			.tp_block_size = c->rx_block_size,
			.tp_block_nr = c->rx_block_nr,
			.tp_frame_size = 2048,
			.tp_frame_nr = c->rx_block_size / 2048 * c->rx_block_nr,
			.tp_retire_blk_tov = c->rx_tov_ms,
		};
		if (setsockopt(p->rx_fd, SOL_PACKET, PACKET_RX_RING, &r3, sizeof(r3)))
			return fail(err, errlen, "PACKET_RX_RING");
		p->rx_block_size = c->rx_block_size;
		p->rx_block_nr = c->rx_block_nr;
		p->rx_ring_size = (size_t)c->rx_block_size * c->rx_block_nr;
	}
	p->rx_ring = mmap(NULL, p->rx_ring_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_LOCKED, p->rx_fd, 0);
	if (p->rx_ring == MAP_FAILED)
		p->rx_ring = mmap(NULL, p->rx_ring_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED, p->rx_fd, 0);
	if (p->rx_ring == MAP_FAILED) {
		p->rx_ring = NULL;
		return fail(err, errlen, "mmap RX ring");
	}
	v = 1;
	/* Linux 4.20+; older kernels: sll_pkttype below */
	setsockopt(p->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v));
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = (int)ifindex,
	};
	if (bind(p->rx_fd, (struct sockaddr *)&ll, sizeof(ll)))
		return fail(err, errlen, "bind RX socket");

	/* send */
	p->tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->tx_fd < 0)
		return fail(err, errlen, "AF_PACKET TX socket");
	v = TPACKET_V2;
	if (setsockopt(p->tx_fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)))
		return fail(err, errlen, "PACKET_VERSION TPACKET_V2");
	v = 1;
	/* skip the qdisc: the ring is the queue (Linux 3.14+) */
	setsockopt(p->tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
	/* a frame the kernel refuses is skipped, not a stop of the ring */
	setsockopt(p->tx_fd, SOL_PACKET, PACKET_LOSS, &v, sizeof(v));
	/* A virtio_net_hdr before each frame, its hdr_len the whole frame:
	 * the kernel then copies the frame into the skb's linear data.
	 * Without it, all but the Ethernet header stays in the ring's page
	 * as a fragment, which a veth (or a NIC without scatter-gather)
	 * copies again into a page of its own for every frame
	 * (skb_copy_ubufs) and the ring waits for the skb's end
	 * (packet_mmap.rst; tpacket_snd).  Before the ring is set up
	 * (the kernel refuses it after), and optional: without it, the
	 * fragments as before. */
	if (!setsockopt(p->tx_fd, SOL_PACKET, PACKET_VNET_HDR, &v, sizeof(v)))
		p->tx_vnet = sizeof(struct virtio_net_hdr);
	struct tpacket_req req = {
		.tp_block_size = c->tx_frame_size * 4,
		.tp_block_nr = c->tx_frame_nr / 4,
		.tp_frame_size = c->tx_frame_size,
		.tp_frame_nr = c->tx_frame_nr,
	};
	if (setsockopt(p->tx_fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)))
		return fail(err, errlen, "PACKET_TX_RING");
	p->tx_frame_size = c->tx_frame_size;
	p->tx_frame_nr = c->tx_frame_nr;
	p->tx_ring_size = (size_t)c->tx_frame_size * c->tx_frame_nr;
	p->tx_ring = mmap(NULL, p->tx_ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			  p->tx_fd, 0);
	if (p->tx_ring == MAP_FAILED) {
		p->tx_ring = NULL;
		return fail(err, errlen, "mmap TX ring");
	}
	/* data without PACKET_TX_HAS_OFF: right after the header, where
	 * sockaddr_ll would be (packet_mmap.rst, "TX ring") */
	p->tx_data_off = TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);
	ll.sll_protocol = 0;
	if (bind(p->tx_fd, (struct sockaddr *)&ll, sizeof(ll)))
		return fail(err, errlen, "bind TX socket");
	return 0;
}

void pktio_close(struct pktio *p)
{
	if (p->xsk) {
		xsk_close(p->xsk);
		free(p->xsk);
		p->xsk = NULL;
		p->rx_fd = -1;   /* the socket's, closed with it */
	}
	if (p->rx_ring)
		munmap(p->rx_ring, p->rx_ring_size);
	if (p->tx_ring)
		munmap(p->tx_ring, p->tx_ring_size);
	if (p->rx_fd >= 0)
		close(p->rx_fd);
	if (p->tx_fd >= 0)
		close(p->tx_fd);
	memset(p, 0, sizeof(*p));
	p->rx_fd = p->tx_fd = -1;
}

static struct tpacket_block_desc *block(const struct pktio *p, unsigned i)
{
	return (struct tpacket_block_desc *)(p->rx_ring + (size_t)i * p->rx_block_size);
}

static struct tpacket2_hdr *rxframe(const struct pktio *p, unsigned i)
{
	return (struct tpacket2_hdr *)(p->rx_ring + (size_t)i * p->rx_frame_size);
}

int pktio_rx_ready(const struct pktio *p)
{
	if (p->xsk)
		return xsk_rx_ready(p->xsk);
	if (p->rx_version == PKTIO_RX_V2)
		return (__atomic_load_n(&rxframe(p, p->rx_next)->tp_status, __ATOMIC_ACQUIRE) &
			TP_STATUS_USER) != 0;
	return (__atomic_load_n(&block(p, p->rx_next)->hdr.bh1.block_status,
				__ATOMIC_ACQUIRE) & TP_STATUS_USER) != 0;
}

/* one frame to the callback: its tag from the status, or in the data */
static int deliver(uint32_t status, uint16_t vtci, uint16_t vtpid, const uint8_t *data,
		   uint32_t snaplen, uint32_t len, pktio_rx_fn fn, void *ctx)
{
	int tci = -1;
	if (status & TP_STATUS_VLAN_VALID) {
		uint16_t tpid = (status & TP_STATUS_VLAN_TPID_VALID) ? vtpid : ETH_P_8021Q;
		/* an 802.1ad outer tag is not a VLAN we steer by */
		if (tpid != ETH_P_8021Q)
			return fn(ctx, (const uint8_t *)"", 0, -1, 0);
		tci = (int)vtci;
	}
	return fn(ctx, data, snaplen, tci, len);
}

static unsigned rx_v2(struct pktio *p, unsigned max_frames, pktio_rx_fn fn, void *ctx)
{
	unsigned frames = 0;
	while (frames < max_frames) {
		struct tpacket2_hdr *h = rxframe(p, p->rx_next);
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (!(st & TP_STATUS_USER))
			break;
		const struct sockaddr_ll *sll = (const struct sockaddr_ll *)
			((uint8_t *)h + TPACKET_ALIGN(sizeof(*h)));
		if (sll->sll_pkttype != PACKET_OUTGOING &&
		    deliver(st, h->tp_vlan_tci, h->tp_vlan_tpid, (uint8_t *)h + h->tp_mac,
			    h->tp_snaplen, h->tp_len, fn, ctx))
			break;  /* offered again next time: the frame stays ours */
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		p->rx_next = (p->rx_next + 1) % p->rx_frame_nr;
		frames++;
	}
	return frames;
}

struct xdp_rx_ctx {
	pktio_rx_fn fn;
	void *ctx;
};

static int xdp_deliver(void *c, const uint8_t *frame, uint32_t len)
{
	const struct xdp_rx_ctx *x = c;
	return x->fn(x->ctx, frame, len, -1, len);
}

unsigned pktio_rx(struct pktio *p, unsigned max_blocks, pktio_rx_fn fn, void *ctx)
{
	if (p->xsk) {
		struct xdp_rx_ctx x = { fn, ctx };
		return xsk_rx(p->xsk, max_blocks * PKTIO_V2_BATCH, xdp_deliver, &x);
	}
	if (p->rx_version == PKTIO_RX_V2)
		return rx_v2(p, max_blocks * PKTIO_V2_BATCH, fn, ctx);
	unsigned frames = 0;
	for (unsigned b = 0; b < max_blocks && pktio_rx_ready(p); b++) {
		struct tpacket_block_desc *bd = block(p, p->rx_next);
		uint32_t n = bd->hdr.bh1.num_pkts;
		struct tpacket3_hdr *h;
		uint32_t i;
		if (p->rx_resume_hdr) {
			/* a frame the receiver could not take yet: start there */
			h = p->rx_resume_hdr;
			i = p->rx_resume_idx;
		} else {
			h = (struct tpacket3_hdr *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
			i = 0;
		}
		for (; i < n; i++) {
			const struct sockaddr_ll *sll = (const struct sockaddr_ll *)
				((uint8_t *)h + TPACKET_ALIGN(sizeof(*h)));
			if (sll->sll_pkttype != PACKET_OUTGOING) {
				int rc = deliver(h->tp_status, h->hv1.tp_vlan_tci,
						 h->hv1.tp_vlan_tpid, (uint8_t *)h + h->tp_mac,
						 h->tp_snaplen, h->tp_len, fn, ctx);
				if (rc) {
					p->rx_resume_hdr = h;
					p->rx_resume_idx = i;
					return frames;
				}
			}
			frames++;
			h = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
		}
		p->rx_resume_hdr = NULL;
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		p->rx_next = (p->rx_next + 1) % p->rx_block_nr;
	}
	return frames;
}

static struct tpacket2_hdr *txframe(const struct pktio *p, unsigned i)
{
	return (struct tpacket2_hdr *)(p->tx_ring + (size_t)i * p->tx_frame_size);
}

uint8_t *pktio_tx_alloc(struct pktio *p, uint32_t len)
{
	if (p->xsk)
		return xsk_tx_alloc(p->xsk, len);
	if (len + p->tx_data_off + p->tx_vnet > p->tx_frame_size)
		return NULL;
	struct tpacket2_hdr *h = txframe(p, p->tx_next);
	uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
	if (st != TP_STATUS_AVAILABLE && st != TP_STATUS_WRONG_FORMAT) {
		/* the kernel has not sent it yet: kick what is pending once */
		if (p->tx_pending)
			pktio_tx_flush(p);
		st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (st != TP_STATUS_AVAILABLE && st != TP_STATUS_WRONG_FORMAT)
			return NULL;
	}
	return (uint8_t *)h + p->tx_data_off + p->tx_vnet;
}

void pktio_tx_commit(struct pktio *p, uint32_t len)
{
	if (p->xsk) {
		xsk_tx_commit(p->xsk, len);
		return;
	}
	struct tpacket2_hdr *h = txframe(p, p->tx_next);
	if (p->tx_vnet) {
		struct virtio_net_hdr *vh =
			(struct virtio_net_hdr *)((uint8_t *)h + p->tx_data_off);
		memset(vh, 0, sizeof(*vh));
		vh->gso_type = VIRTIO_NET_HDR_GSO_NONE;
		vh->hdr_len = htole16((uint16_t)len);   /* little-endian (vio_le) */
	}
	h->tp_len = len + p->tx_vnet;
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
	p->tx_next = (p->tx_next + 1) % p->tx_frame_nr;
	p->tx_pending++;
}

void pktio_tx_flush(struct pktio *p)
{
	if (p->xsk) {
		xsk_tx_flush(p->xsk);
		return;
	}
	if (!p->tx_pending)
		return;
	/* one system call for the whole batch */
	if (send(p->tx_fd, NULL, 0, MSG_DONTWAIT) >= 0 || errno == EAGAIN ||
	    errno == ENOBUFS)
		p->tx_pending = 0;
}

unsigned pktio_kernel_drops(struct pktio *p)
{
	if (p->xsk)
		return xsk_kernel_drops(p->xsk);
	struct tpacket_stats_v3 st;
	socklen_t l = sizeof(st);
	if (getsockopt(p->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &l))
		return 0;
	return st.tp_drops;
}
