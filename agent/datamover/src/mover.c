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
 * The mover's core (see mover.h). */
#define _GNU_SOURCE
#include "mover.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ETH_ALEN2   12      /* destination + source MAC */
#define TPID_8021Q  0x8100u

static void nolog(const char *fmt, ...)
{
	(void)fmt;
}

void dm_init(struct dm_mover *m, struct dm_counters_file *ctr)
{
	memset(m, 0, sizeof(*m));
	memset(m->route_region, -1, sizeof(m->route_region));
	for (int i = 0; i < 4096; i++)
		m->route_egress[i] = DM_NO_VLAN;
	m->ctr = ctr;
	m->max_frame = 9018;
	m->log = nolog;
	ctr->magic = DM_COUNTERS_MAGIC;
	ctr->version = DM_COUNTERS_VERSION;
}

int dm_add_region(struct dm_mover *m, const char *name, int irq_fd)
{
	if (m->nregions == DM_MAX_REGIONS || dm_find_region(m, name) >= 0)
		return -1;
	int r = m->nregions++;
	struct dm_region *g = &m->region[r];
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->irq_fd = irq_fd;
	g->c = m->ctr->r[r].c;
	memcpy(m->ctr->r[r].name, g->name, sizeof(g->name));
	__atomic_store_n(&m->ctr->nregions, (uint32_t)m->nregions, __ATOMIC_RELEASE);
	return r;
}

int dm_find_region(const struct dm_mover *m, const char *name)
{
	for (int r = 0; r < m->nregions; r++)
		if (!strcmp(m->region[r].name, name))
			return r;
	return -1;
}

int dm_region_start(struct dm_mover *m, int r)
{
	struct dm_region *g = &m->region[r];
	if (sg_start(&g->dma)) {
		g->healthy = 0;
		m->log("region %s: %s", g->name, g->dma.err);
		return -1;
	}
	g->healthy = 1;
	return 0;
}

int dm_route_add(struct dm_mover *m, unsigned vlan, int region, unsigned egress)
{
	if (vlan < 1 || vlan > 4094 || region < 0 || region >= m->nregions ||
	    (egress != DM_NO_VLAN && (egress < 1 || egress > 4094)))
		return -1;
	m->route_egress[vlan] = (uint16_t)egress;
	__atomic_store_n(&m->route_region[vlan], (int8_t)region, __ATOMIC_RELAXED);
	return 0;
}

int dm_route_del(struct dm_mover *m, unsigned vlan)
{
	if (vlan < 1 || vlan > 4094 || m->route_region[vlan] < 0)
		return -1;
	m->route_region[vlan] = -1;
	m->route_egress[vlan] = DM_NO_VLAN;
	return 0;
}

void dm_decouple(struct dm_mover *m, int r)
{
	struct dm_region *g = &m->region[r];
	g->decoupled = 1;
	ctr_set(&g->c[DMC_DECOUPLED], 1);
}

int dm_couple(struct dm_mover *m, int r)
{
	struct dm_region *g = &m->region[r];
	/* whatever the previous holder left in flight either way is dropped */
	uint32_t lost = sg_tx_inflight(&g->dma);
	ctr_add(&g->c[DMC_DROP_DECOUPLED], lost);
	int rc = dm_region_start(m, r);
	g->decoupled = 0;
	ctr_set(&g->c[DMC_DECOUPLED], 0);
	return rc;
}

void dm_reset_counters(struct dm_mover *m, int r)
{
	struct dm_region *g = &m->region[r];
	for (int i = 0; i < DMC_REGION_COUNT; i++)
		if (i != DMC_DECOUPLED)
			ctr_set(&g->c[i], 0);
}

int dm_ingress(struct dm_mover *m, const uint8_t *f, uint32_t len, int tci,
	       uint32_t wire_len)
{
	uint64_t *g = m->ctr->g;
	ctr_add(&g[DMG_RX_FRAMES], 1);
	int in_data = tci < 0;
	if (in_data) {
		/* the tag is in the data: 802.1Q TPID at bytes 12..13 */
		if (len < 18 || ((uint32_t)f[12] << 8 | f[13]) != TPID_8021Q) {
			ctr_add(&g[DMG_DROP_NO_ROUTE], 1);
			return 0;
		}
		tci = f[14] << 8 | f[15];
	} else if (len < ETH_ALEN2 + 2) {
		ctr_add(&g[DMG_DROP_NO_ROUTE], 1);
		return 0;
	}
	unsigned vlan = (unsigned)tci & 0x0FFF;
	int r = __atomic_load_n(&m->route_region[vlan], __ATOMIC_RELAXED);
	if (r < 0) {
		ctr_add(&g[DMG_DROP_NO_ROUTE], 1);
		return 0;
	}
	struct dm_region *reg = &m->region[r];
	if (wire_len > len) {
		/* the ring truncated it: larger than any block */
		ctr_add(&g[DMG_RX_TRUNCATED], 1);
		ctr_add(&reg->c[DMC_DROP_OVERSIZE], 1);
		return 0;
	}
	if (reg->decoupled || !reg->healthy) {
		ctr_add(&reg->c[reg->decoupled ? DMC_DROP_DECOUPLED : DMC_DROP_DMA_ERROR], 1);
		return 0;
	}
	/* the frame as the module sees it: MACs, then what followed the tag */
	uint32_t tagged_len = in_data ? len : len + 4;
	const uint8_t *rest = in_data ? f + 16 : f + ETH_ALEN2;
	uint32_t rest_len = tagged_len - 16;
	if (tagged_len > m->max_frame) {
		ctr_add(&reg->c[DMC_DROP_OVERSIZE], 1);
		return 0;
	}
	uint32_t meta = ((uint32_t)tci & 0xF000u);
	if (m->route_egress[vlan] != DM_NO_VLAN)
		meta |= DM_META_EGRESS | m->route_egress[vlan];
	switch (sg_submit(&reg->dma, f, ETH_ALEN2, rest, rest_len, meta)) {
	case SG_OK:
		reg->full_since_ns = 0;
		ctr_add(&reg->c[DMC_FRAMES_IN], 1);
		ctr_add(&reg->c[DMC_BYTES_IN], ETH_ALEN2 + rest_len);
		break;
	case SG_FULL:
		if (m->stall_ns) {
			if (!reg->full_since_ns)
				reg->full_since_ns = m->now_ns;
			if (m->now_ns - reg->full_since_ns < m->stall_ns) {
				/* the interface's ring holds it: the submitted frames
				 * must start before we wait for them */
				sg_tx_flush(&reg->dma);
				/* offered again: counted once */
				ctr_set(&g[DMG_RX_FRAMES], g[DMG_RX_FRAMES] - 1);
				m->held = 1;
				return 1;
			}
		}
		ctr_add(&reg->c[DMC_DROP_RING_FULL], 1);
		break;
	case SG_OVERSIZE:
		ctr_add(&reg->c[DMC_DROP_OVERSIZE], 1);
		break;
	}
	return 0;
}

void dm_ingress_flush(struct dm_mover *m)
{
	for (int r = 0; r < m->nregions; r++)
		if (m->region[r].healthy)
			sg_tx_flush(&m->region[r].dma);
}

struct deliver_ctx {
	struct dm_mover *m;
	struct dm_region *g;
};

static void deliver(void *vctx, const uint8_t *data, uint32_t len, uint32_t meta)
{
	struct deliver_ctx *x = vctx;
	struct dm_region *g = x->g;
	if (g->decoupled) {
		ctr_add(&g->c[DMC_DROP_DECOUPLED], 1);
		return;
	}
	if (!(meta & DM_META_EGRESS)) {
		ctr_add(&g->c[DMC_DROP_NO_EGRESS], 1);
		return;
	}
	if (len < ETH_ALEN2 || len + 4 > x->m->max_frame) {
		ctr_add(&g->c[DMC_DROP_OVERSIZE], 1);
		return;
	}
	uint8_t *out = x->m->tx->alloc(x->m->tx_ctx, len + 4);
	if (!out) {
		ctr_add(&g->c[DMC_DROP_RING_FULL], 1);
		return;
	}
	/* egress VLAN, ingress priority (PCP and DEI) kept */
	uint32_t tci = (meta & 0xF000u) | (meta & 0x0FFFu);
	memcpy(out, data, ETH_ALEN2);
	out[12] = TPID_8021Q >> 8;
	out[13] = TPID_8021Q & 0xFF;
	out[14] = (uint8_t)(tci >> 8);
	out[15] = (uint8_t)tci;
	memcpy(out + 16, data + ETH_ALEN2, len - ETH_ALEN2);
	x->m->tx->commit(x->m->tx_ctx, len + 4);
	ctr_add(&g->c[DMC_FRAMES_OUT], 1);
	ctr_add(&g->c[DMC_BYTES_OUT], len + 4);
	ctr_add(&x->m->ctr->g[DMG_TX_FRAMES], 1);
}

void dm_region_recover(struct dm_mover *m, int r, uint32_t err)
{
	struct dm_region *g = &m->region[r];
	uint32_t a = reg_rd(g->dma.regs, PG021_MM2S + PG021_DMASR);
	uint32_t b = reg_rd(g->dma.regs, PG021_S2MM + PG021_DMASR);
	uint32_t ca = reg_rd(g->dma.regs, PG021_MM2S + PG021_CURDESC);
	uint32_t cb = reg_rd(g->dma.regs, PG021_S2MM + PG021_CURDESC);
	uint32_t lost = sg_tx_inflight(&g->dma);
	m->log("region %s: AXI DMA error 0x%x (MM2S_DMASR 0x%08x CURDESC 0x%08x, "
	       "S2MM_DMASR 0x%08x CURDESC 0x%08x): reset, %u frames in flight dropped",
	       g->name, err, a, ca, b, cb, lost);
	ctr_add(&g->c[DMC_DROP_DMA_ERROR], lost);
	ctr_add(&g->c[DMC_DMA_RESETS], 1);
	dm_region_start(m, r);
}

uint32_t dm_poll(struct dm_mover *m, uint32_t budget)
{
	uint32_t work = 0;
	for (int r = 0; r < m->nregions; r++) {
		struct dm_region *g = &m->region[r];
		if (!g->healthy)
			continue;
		struct deliver_ctx x = { m, g };
		uint32_t errors, oversize;
		uint32_t n = sg_rx_poll(&g->dma, budget, deliver, &x, &errors, &oversize);
		if (oversize)
			ctr_add(&g->c[DMC_DROP_OVERSIZE], oversize);
		if (errors)
			ctr_add(&g->c[DMC_DROP_DMA_ERROR], errors);
		uint32_t txerr;
		uint32_t t = sg_tx_reap(&g->dma, &txerr);
		if (txerr)
			ctr_add(&g->c[DMC_DROP_DMA_ERROR], txerr);
		work += n + t;
		/* health: two register reads per region per round */
		uint32_t err = sg_check(&g->dma, NULL, NULL);
		if (err || errors || txerr)
			dm_region_recover(m, r, err ? err : DMASR_ERR_IRQ);
	}
	if (work)
		m->tx->flush(m->tx_ctx);
	return work;
}

int dm_region_busy(const struct dm_mover *m, int r)
{
	return sg_tx_inflight(&m->region[r].dma) != 0;
}
