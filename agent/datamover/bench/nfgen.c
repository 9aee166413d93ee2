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
 * nova-fpga-nfgen: the RFC 2544 benchmark's traffic generator and receiver
 * (benchmarks/rfc2544.py runs one trial per invocation).  It is not the
 * mover: it runs on the network's end of the veth pair, outside the board's
 * namespace.
 *
 *   nova-fpga-nfgen --interface IF --size BYTES --rate PPS --seconds S
 *                   [--vlan 100] [--prio 5] [--expect-vlan 200]
 *                   [--drain-ms 300] [--trial N] [--tick-us 50]
 *
 * Frame size as RFC 2544 counts it: the Ethernet frame with its 802.1Q tag
 * and FCS; a veth carries no FCS, so SIZE - 4 bytes are sent.  Each frame
 * carries a magic, the trial number, a sequence number and its send time
 * (CLOCK_REALTIME, ns, stamped as it is written into the TX ring, just before
 * the send() that hands its batch to the kernel).
 *
 * Send: a TPACKET_V2 TX ring (PACKET_QDISC_BYPASS), paced in batches: every
 * tick (default 50 us) the frames due by now are written and one send()
 * hands them over.  Receive: a TPACKET_V3 RX ring on the same interface
 * (PACKET_IGNORE_OUTGOING); a frame's latency is the kernel's receive
 * timestamp of it (tp_sec/tp_nsec, taken when the packet socket got it, so
 * this process's own scheduling does not count) minus its send time.
 * Frames of other trials or with the wrong VLAN are counted apart.
 *
 * Prints one JSON object: offered (sent) frames and rate, received,
 * lost, reordered/duplicate counts, latency min/avg/p50/p99/max in ns.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define MAGIC      0x4e465247u   /* "NFRG" */
#define ETHERTYPE  0x88B5        /* IEEE local experimental */
#define HIST_NS    100           /* latency histogram: 100 ns buckets */
#define HIST_N     200000        /* up to 20 ms; beyond: overflow bucket */
#define RX_BLOCK   (1u << 20)
#define RX_BLOCKS  64

struct payload {
	uint32_t magic;
	uint32_t trial;
	uint64_t seq;
	uint64_t sent_ns;
} __attribute__((packed));

static uint64_t now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "nova-fpga-nfgen: %s: %s\n", what, strerror(errno));
	exit(1);
}

struct rx {
	int fd;
	uint8_t *ring;
	unsigned next;
	uint32_t trial, expect_vlan;
	uint64_t received, other, wrong_vlan, reordered, last_seq;
	uint64_t lat_sum, lat_min, lat_max, lat_n;
	uint32_t *hist;
	uint64_t overflow;
};

static void rx_drain(struct rx *r)
{
	for (;;) {
		struct tpacket_block_desc *bd =
			(struct tpacket_block_desc *)(r->ring + (size_t)r->next * RX_BLOCK);
		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			return;
		struct tpacket3_hdr *h = (struct tpacket3_hdr *)
			((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
		for (uint32_t i = 0; i < bd->hdr.bh1.num_pkts; i++) {
			const uint8_t *f = (const uint8_t *)h + h->tp_mac;
			uint32_t len = h->tp_snaplen;
			int vlan = -1;
			uint32_t off = 12;
			if (h->tp_status & TP_STATUS_VLAN_VALID) {
				vlan = h->hv1.tp_vlan_tci & 0x0FFF;
			} else if (len >= 18 && f[12] == 0x81 && f[13] == 0x00) {
				vlan = ((f[14] << 8) | f[15]) & 0x0FFF;
				off = 16;
			}
			struct payload p;
			if (len >= off + 2 + sizeof(p) && f[off] == (ETHERTYPE >> 8) &&
			    f[off + 1] == (ETHERTYPE & 0xFF)) {
				memcpy(&p, f + off + 2, sizeof(p));
				if (p.magic != MAGIC || p.trial != r->trial) {
					r->other++;
				} else if ((uint32_t)vlan != r->expect_vlan) {
					r->wrong_vlan++;
				} else {
					uint64_t at = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
					int64_t lat = (int64_t)(at - p.sent_ns);
					if (lat < 0)
						lat = 0;
					r->received++;
					if (r->received > 1 && p.seq <= r->last_seq)
						r->reordered++;
					r->last_seq = p.seq;
					r->lat_sum += (uint64_t)lat;
					r->lat_n++;
					if (!r->lat_min || (uint64_t)lat < r->lat_min)
						r->lat_min = (uint64_t)lat;
					if ((uint64_t)lat > r->lat_max)
						r->lat_max = (uint64_t)lat;
					uint64_t b = (uint64_t)lat / HIST_NS;
					if (b < HIST_N)
						r->hist[b]++;
					else
						r->overflow++;
				}
			} else {
				r->other++;
			}
			h = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
		}
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->next = (r->next + 1) % RX_BLOCKS;
	}
}

static uint64_t percentile(const struct rx *r, double q)
{
	uint64_t want = (uint64_t)((double)r->lat_n * q);
	uint64_t seen = 0;
	if (!r->lat_n)
		return 0;
	for (uint32_t b = 0; b < HIST_N; b++) {
		seen += r->hist[b];
		if (seen > want)
			return (uint64_t)(b + 1) * HIST_NS;
	}
	return r->lat_max;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL;
	unsigned size = 64, vlan = 100, prio = 5, expect = 200, drain_ms = 300, tick_us = 50;
	uint32_t trial = 1;
	double rate = 1000, seconds = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "--interface"))
			ifname = v;
		else if (!strcmp(a, "--size"))
			size = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--rate"))
			rate = strtod(v, NULL);
		else if (!strcmp(a, "--seconds"))
			seconds = strtod(v, NULL);
		else if (!strcmp(a, "--vlan"))
			vlan = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--prio"))
			prio = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--expect-vlan"))
			expect = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--drain-ms"))
			drain_ms = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--trial"))
			trial = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--tick-us"))
			tick_us = (unsigned)strtoul(v, NULL, 0);
	}
	if (!ifname || size < 64 || size > 9022 || rate <= 0 || seconds <= 0) {
		fprintf(stderr, "usage: nova-fpga-nfgen --interface IF --size 64..9022 "
			"--rate PPS --seconds S [--vlan V] [--prio P] [--expect-vlan V] "
			"[--drain-ms MS] [--trial N] [--tick-us US]\n");
		return 2;
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	unsigned ifindex = if_nametoindex(ifname);
	if (!ifindex)
		die(ifname);
	unsigned len = size - 4;   /* no FCS on a veth */

	/* receive first, so nothing of this trial is missed */
	struct rx r = { .trial = trial, .expect_vlan = expect };
	r.hist = calloc(HIST_N, sizeof(*r.hist));
	r.fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (r.fd < 0)
		die("socket");
	int v = TPACKET_V3;
	if (setsockopt(r.fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)))
		die("PACKET_VERSION");
	struct tpacket_req3 r3 = {
		.tp_block_size = RX_BLOCK, .tp_block_nr = RX_BLOCKS,
		.tp_frame_size = 2048, .tp_frame_nr = RX_BLOCK / 2048 * RX_BLOCKS,
		.tp_retire_blk_tov = 1,
	};
	if (setsockopt(r.fd, SOL_PACKET, PACKET_RX_RING, &r3, sizeof(r3)))
		die("PACKET_RX_RING");
	r.ring = mmap(NULL, (size_t)RX_BLOCK * RX_BLOCKS, PROT_READ | PROT_WRITE,
		      MAP_SHARED, r.fd, 0);
	if (r.ring == MAP_FAILED)
		die("mmap RX");
	v = 1;
	setsockopt(r.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v));
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
				  .sll_ifindex = (int)ifindex };
	if (bind(r.fd, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind RX");

	/* send */
	int tx = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx < 0)
		die("socket TX");
	v = TPACKET_V2;
	if (setsockopt(tx, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)))
		die("PACKET_VERSION TX");
	v = 1;
	setsockopt(tx, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
	/* a virtio_net_hdr (hdr_len: the whole frame) before each frame: the
	 * kernel copies it into the skb's linear data, as the mover does
	 * (src/pktio.c), instead of a fragment the veth copies again */
	unsigned vnet = 0;
	if (!setsockopt(tx, SOL_PACKET, PACKET_VNET_HDR, &v, sizeof(v)))
		vnet = sizeof(struct virtio_net_hdr);
	unsigned fsize = 2048;
	while (fsize < len + vnet + TPACKET2_HDRLEN)
		fsize <<= 1;
	unsigned fnr = (4u << 20) / fsize;
	if (fnr < 256)
		fnr = 256;
	struct tpacket_req req = { .tp_block_size = fsize * 4, .tp_block_nr = fnr / 4,
				   .tp_frame_size = fsize, .tp_frame_nr = fnr };
	if (setsockopt(tx, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)))
		die("PACKET_TX_RING");
	uint8_t *txr = mmap(NULL, (size_t)fsize * fnr, PROT_READ | PROT_WRITE, MAP_SHARED, tx, 0);
	if (txr == MAP_FAILED)
		die("mmap TX");
	ll.sll_protocol = 0;
	if (bind(tx, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind TX");
	unsigned vnet_off = TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);
	unsigned data_off = vnet_off + vnet;

	/* the frame template */
	uint8_t tmpl[9022];
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }, src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	memcpy(tmpl, dst, 6);
	memcpy(tmpl + 6, src, 6);
	tmpl[12] = 0x81;
	tmpl[13] = 0x00;
	uint16_t tci = (uint16_t)((prio & 7) << 13 | (vlan & 0x0FFF));
	tmpl[14] = (uint8_t)(tci >> 8);
	tmpl[15] = (uint8_t)tci;
	tmpl[16] = ETHERTYPE >> 8;
	tmpl[17] = ETHERTYPE & 0xFF;
	for (unsigned i = 18; i < len; i++)
		tmpl[i] = (uint8_t)(i * 7);
	/* prime every TX slot with the template: per frame only the payload
	 * header is written */
	for (unsigned i = 0; i < fnr; i++) {
		memcpy(txr + (size_t)i * fsize + data_off, tmpl, len);
		if (vnet) {
			struct virtio_net_hdr vh = {
				.gso_type = VIRTIO_NET_HDR_GSO_NONE,
				.hdr_len = htole16((uint16_t)len),
			};
			memcpy(txr + (size_t)i * fsize + vnet_off, &vh, sizeof(vh));
		}
	}

	uint64_t total = (uint64_t)(rate * seconds + 0.5);
	uint64_t sent = 0, ring_full = 0, sends = 0;
	unsigned next = 0;
	uint64_t t0 = now_mono();
	double ns_per = 1e9 / rate;
	/* a rate the host cannot offer still ends on time (plus 5 %): the
	 * frames not sent show as an offered rate short of the one asked */
	uint64_t deadline = t0 + (uint64_t)(seconds * 1.05e9);
	while (sent < total) {
		uint64_t t = now_mono();
		if (t > deadline)
			break;
		uint64_t due = (uint64_t)((double)(t - t0) / ns_per) + 1;
		if (due > total)
			due = total;
		unsigned batch = 0;
		while (sent < due) {
			struct tpacket2_hdr *h = (struct tpacket2_hdr *)(txr + (size_t)next * fsize);
			uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
			if (st != TP_STATUS_AVAILABLE && st != TP_STATUS_WRONG_FORMAT) {
				ring_full++;
				break;
			}
			struct payload p = { MAGIC, trial, sent, now_real() };
			memcpy((uint8_t *)h + data_off + 18, &p, sizeof(p));
			h->tp_len = len + vnet;
			__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
			next = (next + 1) % fnr;
			sent++;
			if (++batch == 64) {
				send(tx, NULL, 0, MSG_DONTWAIT);
				sends++;
				batch = 0;
				/* behind a rate the host cannot offer, `due` runs
				 * far ahead: the deadline holds here too */
				if (now_mono() > deadline)
					break;
			}
		}
		if (batch) {
			send(tx, NULL, 0, MSG_DONTWAIT);
			sends++;
		}
		rx_drain(&r);
		/* sleep to the next tick unless behind */
		uint64_t after = now_mono();
		uint64_t next_due = t0 + (uint64_t)((double)(sent + 1) * ns_per);
		uint64_t wake = t + (uint64_t)tick_us * 1000u;
		if (next_due > wake)
			wake = next_due;
		if (wake > after) {
			struct timespec ts = { (time_t)(wake / 1000000000ull),
					       (long)(wake % 1000000000ull) };
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	uint64_t t_end = now_mono();
	/* everything handed to the kernel: wait until the ring is empty */
	for (int k = 0; k < 1000; k++) {
		int pending = 0;
		for (unsigned i = 0; i < fnr && !pending; i++) {
			struct tpacket2_hdr *h = (struct tpacket2_hdr *)(txr + (size_t)i * fsize);
			uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
			pending = st == TP_STATUS_SEND_REQUEST || st == TP_STATUS_SENDING;
		}
		if (!pending)
			break;
		send(tx, NULL, 0, MSG_DONTWAIT);
		usleep(1000);
	}
	uint64_t drain_end = now_mono() + (uint64_t)drain_ms * 1000000ull;
	while (now_mono() < drain_end && r.received < sent) {
		struct pollfd pf = { .fd = r.fd, .events = POLLIN };
		poll(&pf, 1, 5);
		rx_drain(&r);
	}
	/* a last look for stragglers (a block retires after 1 ms) */
	usleep(3000);
	rx_drain(&r);
	struct tpacket_stats_v3 st;
	socklen_t sl = sizeof(st);
	memset(&st, 0, sizeof(st));
	getsockopt(r.fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
	double dur = (double)(t_end - t0) / 1e9;
	printf("{\"size\": %u, \"rate\": %.1f, \"seconds\": %.3f, \"sent\": %llu, "
	       "\"offered_pps\": %.1f, \"received\": %llu, \"lost\": %lld, "
	       "\"reordered\": %llu, \"other\": %llu, \"wrong_vlan\": %llu, "
	       "\"rx_kernel_drops\": %u, \"tx_ring_full\": %llu, \"sends\": %llu, "
	       "\"lat_min_ns\": %llu, \"lat_avg_ns\": %llu, \"lat_p50_ns\": %llu, "
	       "\"lat_p99_ns\": %llu, \"lat_max_ns\": %llu, \"lat_overflow\": %llu}\n",
	       size, rate, dur, (unsigned long long)sent, dur > 0 ? (double)sent / dur : 0.0,
	       (unsigned long long)r.received, (long long)sent - (long long)r.received,
	       (unsigned long long)r.reordered, (unsigned long long)r.other,
	       (unsigned long long)r.wrong_vlan, st.tp_drops, (unsigned long long)ring_full,
	       (unsigned long long)sends, (unsigned long long)r.lat_min,
	       (unsigned long long)(r.lat_n ? r.lat_sum / r.lat_n : 0),
	       (unsigned long long)percentile(&r, 0.5), (unsigned long long)percentile(&r, 0.99),
	       (unsigned long long)r.lat_max, (unsigned long long)r.overflow);
	return 0;
}
