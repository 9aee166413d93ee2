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
 * A Verilated module behind the emulated DMA: the repo's Verilator bridge
 * (hdl/bridge/region_bridge.cpp, built by
 * agent/emulator/nova_fpga_emulator/hdl_bridge.py into libregion.so) loaded
 * with dlopen() and driven through its C ABI: push a frame, clock, pull a
 * frame.  See module.h.
 */
#define _GNU_SOURCE
#include "module.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vmod {
	void *lib, *h;
	unsigned (*data_width)(void);
	void *(*new_)(void);
	void (*free_)(void *);
	void (*reset)(void *, uint32_t);
	void (*clock)(void *, uint64_t);
	uint64_t (*clock_until_idle)(void *, uint64_t, uint32_t);
	uint64_t (*cycles)(void *);
	void (*push)(void *, const uint8_t *, uint32_t);
	uint32_t (*pending_input)(void *);
	uint32_t (*output_count)(void *);
	int64_t (*next_len)(void *);
	int64_t (*pull)(void *, uint8_t *, uint32_t);
	int (*axil_write)(void *, uint32_t, uint32_t, uint32_t, uint64_t);
	int (*axil_read)(void *, uint32_t, uint32_t *, uint64_t);
	void (*set_decouple)(void *, int);
	int (*decouple_status)(void *);
	int decoupled;
	uint32_t quiet_cycles;
	uint64_t frames_in, frames_out;
	uint8_t *scratch;
};

#define QUIET_CYCLES 64        /* nova_fpga.catalogue.entry.QUIET_CYCLES: a module's default */
#define RUN_MAX_CYCLES (1ull << 26)
#define AXIL_TIMEOUT 1000

void vmod_set_quiet(struct vmod *m, uint32_t cycles)
{
	m->quiet_cycles = cycles ? cycles : QUIET_CYCLES;
}

static void m_push(void *ctx, const uint8_t *data, uint32_t len)
{
	struct vmod *m = ctx;
	m->push(m->h, data, len);
	m->frames_in++;
}

static int m_run(void *ctx)
{
	struct vmod *m = ctx;
	/* every pushed frame goes in, then the module has quiet_cycles
	 * without a beat to send what it holds and finish what it does after
	 * a frame (the vTC reads a frame's host name after it) */
	return m->clock_until_idle(m->h, RUN_MAX_CYCLES, m->quiet_cycles) != 0;
}

static uint32_t m_held(void *ctx)
{
	struct vmod *m = ctx;
	return m->pending_input(m->h) + m->output_count(m->h);
}

static int64_t m_pull(void *ctx, uint8_t *buf, uint32_t cap)
{
	struct vmod *m = ctx;
	int64_t len = m->pull(m->h, buf, cap);
	if (len == -2) {
		/* larger than the engine's packets: taken out and dropped */
		m->pull(m->h, m->scratch, VMOD_SCRATCH);
		return -2;
	}
	if (len >= 0)
		m->frames_out++;
	return len;
}

static void m_flush(void *ctx)
{
	struct vmod *m = ctx;
	/* the stream data in flight is lost; the module keeps its state */
	m->clock_until_idle(m->h, RUN_MAX_CYCLES, m->quiet_cycles);
	while (m->pull(m->h, m->scratch, VMOD_SCRATCH) != -1)
		;
}

#define SYM(field, name)                                                     \
	do {                                                                 \
		*(void **)&m->field = dlsym(m->lib, name);                   \
		if (!m->field && strcmp(name, "region_set_decouple") &&       \
		    strcmp(name, "region_decouple_status")) {      \
			snprintf(err, errlen, "%s: no %s", path, name);      \
			goto fail;                                           \
		}                                                            \
	} while (0)

struct vmod *vmod_open(const char *path, struct emu_module *ops, char *err, size_t errlen)
{
	struct vmod *m = calloc(1, sizeof(*m));
	if (!m || !(m->scratch = malloc(VMOD_SCRATCH))) {
		snprintf(err, errlen, "out of memory");
		free(m);
		return NULL;
	}
	m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!m->lib) {
		snprintf(err, errlen, "%s", dlerror());
		goto fail;
	}
	SYM(data_width, "region_data_width");
	SYM(new_, "region_new");
	SYM(free_, "region_free");
	SYM(reset, "region_reset");
	SYM(clock, "region_clock");
	SYM(clock_until_idle, "region_clock_until_idle");
	SYM(cycles, "region_cycles");
	SYM(push, "region_push_frame");
	SYM(pending_input, "region_pending_input");
	SYM(output_count, "region_output_count");
	SYM(next_len, "region_next_frame_length");
	SYM(pull, "region_pull_frame");
	SYM(axil_write, "region_axil_write");
	SYM(axil_read, "region_axil_read");
	SYM(set_decouple, "region_set_decouple");
	SYM(decouple_status, "region_decouple_status");
	m->quiet_cycles = QUIET_CYCLES;
	m->h = m->new_();
	/* a module in its slot (region_slot.v): coupled */
	if (m->set_decouple)
		m->set_decouple(m->h, 0);
	m->reset(m->h, 8);
	if (m->set_decouple)
		m->clock(m->h, 2);
	*ops = (struct emu_module){ m, m_push, m_run, m_held, m_pull, m_flush };
	return m;
fail:
	if (m->lib)
		dlclose(m->lib);
	free(m->scratch);
	free(m);
	return NULL;
}

void vmod_close(struct vmod *m)
{
	if (!m)
		return;
	m->free_(m->h);
	/* not dlclose()d: Verilator's statics may have exit handlers */
	free(m->scratch);
	free(m);
}

int vmod_axil_write(struct vmod *m, uint32_t addr, uint32_t value)
{
	return m->axil_write(m->h, addr, value, 0xF, AXIL_TIMEOUT);
}

int vmod_axil_read(struct vmod *m, uint32_t addr, uint32_t *value)
{
	return m->axil_read(m->h, addr, value, AXIL_TIMEOUT);
}

uint64_t vmod_cycles(const struct vmod *m)
{
	return m->cycles(m->h);
}

unsigned vmod_data_width(const struct vmod *m)
{
	return m->data_width();
}

void vmod_counts(const struct vmod *m, uint64_t *in, uint64_t *out)
{
	*in = m->frames_in;
	*out = m->frames_out;
}

void vmod_reset(struct vmod *m, uint32_t cycles, uint64_t settle)
{
	m->reset(m->h, cycles);
	if (settle)
		m->clock(m->h, settle);
}

void vmod_set_decoupled(struct vmod *m, int on)
{
	m->decoupled = !!on;
	if (m->set_decouple) {
		m->set_decouple(m->h, !!on);
		m->clock(m->h, 2);
	}
}

int vmod_decoupled(const struct vmod *m)
{
	if (m->decouple_status)
		return m->decouple_status(m->h) != 0;
	return m->decoupled;
}
