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

// Verilator harness for one reconfigurable module, exported as a small C ABI.
//
// The module is any top that follows the interface in hdl/README.md,
// verilated with --prefix Vregion.  Each cycle the harness plays the shell:
// it feeds queued frames into s_axis (one beat per cycle when the module
// is ready), always accepts m_axis, collects complete output frames, and
// runs at most one AXI4-Lite access at a time.  Inputs are driven while
// the clock is low and handshakes are sampled just before the rising edge,
// as a synchronous testbench would.
//
// Built by nova_fpga_agent.emulator.hdl_bridge; BRIDGE_DATA_WIDTH (<= 64)
// must equal the module's DATA_WIDTH.

#include "Vregion.h"
#include "verilated.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#ifndef BRIDGE_DATA_WIDTH
#error "BRIDGE_DATA_WIDTH must be defined"
#endif
static_assert(BRIDGE_DATA_WIDTH % 8 == 0 && BRIDGE_DATA_WIDTH <= 64,
              "the bridge moves beats of up to 64 bits");

namespace {

constexpr unsigned kBeatBytes = BRIDGE_DATA_WIDTH / 8;

// AXI4-Lite response codes returned by the access functions, plus our own.
constexpr int kRespTimeout = -1;
constexpr int kRespBusy = -2;

struct AxilAccess {
    bool active = false;
    bool write = false;
    bool addr_done = false;
    bool data_done = false;
    bool finished = false;
    uint32_t addr = 0;
    uint32_t wdata = 0;
    uint32_t wstrb = 0;
    uint32_t rdata = 0;
    uint32_t resp = 0;
};

struct Region {
    std::unique_ptr<VerilatedContext> context;
    std::unique_ptr<Vregion> top;
    std::deque<std::vector<uint8_t>> in_frames;
    size_t in_offset = 0;
    std::deque<std::vector<uint8_t>> out_frames;
    std::vector<uint8_t> out_partial;
    AxilAccess axil;
    uint64_t cycles = 0;
};

void drive(Region& r) {
    Vregion& t = *r.top;
    if (!r.in_frames.empty()) {
        const std::vector<uint8_t>& frame = r.in_frames.front();
        size_t count = frame.size() - r.in_offset;
        if (count > kBeatBytes) count = kBeatBytes;
        uint64_t data = 0;
        uint64_t keep = 0;
        for (size_t i = 0; i < count; ++i) {
            data |= uint64_t(frame[r.in_offset + i]) << (8 * i);
            keep |= uint64_t(1) << i;
        }
        t.s_axis_tdata = data;
        t.s_axis_tkeep = keep;
        t.s_axis_tlast = r.in_offset + count >= frame.size();
        t.s_axis_tvalid = 1;
    } else {
        t.s_axis_tvalid = 0;
    }
    t.m_axis_tready = 1;

    const AxilAccess& a = r.axil;
    bool pending = a.active && !a.finished;
    t.s_axil_awaddr = a.addr;
    t.s_axil_awprot = 0;
    t.s_axil_awvalid = pending && a.write && !a.addr_done;
    t.s_axil_wdata = a.wdata;
    t.s_axil_wstrb = a.wstrb;
    t.s_axil_wvalid = pending && a.write && !a.data_done;
    t.s_axil_bready = pending && a.write;
    t.s_axil_araddr = a.addr;
    t.s_axil_arprot = 0;
    t.s_axil_arvalid = pending && !a.write && !a.addr_done;
    t.s_axil_rready = pending && !a.write;
}

// One clock cycle; returns true if a stream beat moved on either side.
bool step(Region& r) {
    Vregion& t = *r.top;
    drive(r);
    t.aclk = 0;
    t.eval();

    bool in_beat = t.s_axis_tvalid && t.s_axis_tready;
    bool out_beat = t.m_axis_tvalid && t.m_axis_tready;
    uint64_t out_data = t.m_axis_tdata;
    uint64_t out_keep = t.m_axis_tkeep;
    bool out_last = t.m_axis_tlast;

    AxilAccess& a = r.axil;
    bool aw = t.s_axil_awvalid && t.s_axil_awready;
    bool w = t.s_axil_wvalid && t.s_axil_wready;
    bool b = t.s_axil_bvalid && t.s_axil_bready;
    bool ar = t.s_axil_arvalid && t.s_axil_arready;
    bool rd = t.s_axil_rvalid && t.s_axil_rready;
    uint32_t bresp = t.s_axil_bresp;
    uint32_t rresp = t.s_axil_rresp;
    uint32_t rdata = t.s_axil_rdata;

    t.aclk = 1;
    t.eval();
    ++r.cycles;
    r.context->timeInc(1);

    if (in_beat) {
        r.in_offset += kBeatBytes;
        if (r.in_offset >= r.in_frames.front().size()) {
            r.in_frames.pop_front();
            r.in_offset = 0;
        }
    }
    if (out_beat) {
        for (unsigned i = 0; i < kBeatBytes; ++i) {
            if (out_keep >> i & 1) r.out_partial.push_back(uint8_t(out_data >> (8 * i)));
        }
        if (out_last) {
            r.out_frames.push_back(std::move(r.out_partial));
            r.out_partial.clear();
        }
    }
    if (aw || ar) a.addr_done = true;
    if (w) a.data_done = true;
    if (b) {
        a.resp = bresp;
        a.finished = true;
    }
    if (rd) {
        a.resp = rresp;
        a.rdata = rdata;
        a.finished = true;
    }
    return in_beat || out_beat;
}

int run_access(Region& r, uint64_t timeout_cycles) {
    for (uint64_t i = 0; i < timeout_cycles && !r.axil.finished; ++i) step(r);
    bool finished = r.axil.finished;
    // an access that timed out stays on the bus, as it would on the interconnect;
    // a late answer is dropped when the next access starts
    if (!finished) return kRespTimeout;
    r.axil.active = false;
    return int(r.axil.resp);
}

}  // namespace

extern "C" {

unsigned region_data_width() { return BRIDGE_DATA_WIDTH; }

void* region_new() {
    Region* r = new Region;
    r->context.reset(new VerilatedContext);
    r->top.reset(new Vregion(r->context.get(), "region"));
    r->top->aresetn = 0;
    r->top->aclk = 0;
    drive(*r);
    r->top->eval();
    return r;
}

#ifdef BRIDGE_SLOT
// The module sits behind region_decoupler.v (region_slot.v): drive its
// decouple input; the decoupler answers DECERR and holds the module in
// reset while it is high.
void region_set_decouple(void* handle, int on) {
    static_cast<Region*>(handle)->top->decouple = on ? 1 : 0;
}

int region_decouple_status(void* handle) {
    return static_cast<Region*>(handle)->top->decouple_status;
}
#endif

void region_free(void* handle) {
    Region* r = static_cast<Region*>(handle);
    r->top->final();
    delete r;
}

// Hold aresetn low for `cycles` cycles; frames queued or half-collected are dropped.
void region_reset(void* handle, uint32_t cycles) {
    Region& r = *static_cast<Region*>(handle);
    r.in_frames.clear();
    r.in_offset = 0;
    r.out_frames.clear();
    r.out_partial.clear();
    r.axil = AxilAccess();
    r.top->aresetn = 0;
    for (uint32_t i = 0; i < cycles; ++i) step(r);
    r.top->aresetn = 1;
    step(r);
}

void region_clock(void* handle, uint64_t cycles) {
    Region& r = *static_cast<Region*>(handle);
    for (uint64_t i = 0; i < cycles; ++i) step(r);
}

// Clock until every queued frame has gone in and no beat has moved for
// `quiet_cycles` cycles, or `max_cycles` have passed; returns cycles run.
uint64_t region_clock_until_idle(void* handle, uint64_t max_cycles, uint32_t quiet_cycles) {
    Region& r = *static_cast<Region*>(handle);
    uint64_t ran = 0;
    uint32_t quiet = 0;
    while (ran < max_cycles && (quiet < quiet_cycles || !r.in_frames.empty())) {
        quiet = step(r) ? 0 : quiet + 1;
        ++ran;
    }
    return ran;
}

uint64_t region_cycles(void* handle) { return static_cast<Region*>(handle)->cycles; }

void region_push_frame(void* handle, const uint8_t* data, uint32_t length) {
    Region& r = *static_cast<Region*>(handle);
    r.in_frames.emplace_back(data, data + length);
}

uint32_t region_pending_input(void* handle) {
    return uint32_t(static_cast<Region*>(handle)->in_frames.size());
}

uint32_t region_output_count(void* handle) {
    return uint32_t(static_cast<Region*>(handle)->out_frames.size());
}

// Length of the oldest collected frame, or -1 when there is none.
int64_t region_next_frame_length(void* handle) {
    Region& r = *static_cast<Region*>(handle);
    return r.out_frames.empty() ? -1 : int64_t(r.out_frames.front().size());
}

// Copy out and remove the oldest collected frame; returns its length, -1 when there is
// none, -2 when `capacity` is too small (the frame stays queued).
int64_t region_pull_frame(void* handle, uint8_t* buffer, uint32_t capacity) {
    Region& r = *static_cast<Region*>(handle);
    if (r.out_frames.empty()) return -1;
    const std::vector<uint8_t>& frame = r.out_frames.front();
    if (frame.size() > capacity) return -2;
    int64_t length = int64_t(frame.size());
    std::memcpy(buffer, frame.data(), frame.size());
    r.out_frames.pop_front();
    return length;
}

// AXI4-Lite accesses: return the response (0 OKAY, 2 SLVERR, 3 DECERR),
// -1 when the module did not answer within `timeout_cycles`, -2 when an
// earlier access is still outstanding.
int region_axil_write(void* handle, uint32_t addr, uint32_t data, uint32_t strb,
                      uint64_t timeout_cycles) {
    Region& r = *static_cast<Region*>(handle);
    if (r.axil.active && !r.axil.finished) return kRespBusy;
    r.axil = AxilAccess();
    r.axil.active = true;
    r.axil.write = true;
    r.axil.addr = addr;
    r.axil.wdata = data;
    r.axil.wstrb = strb;
    return run_access(r, timeout_cycles);
}

int region_axil_read(void* handle, uint32_t addr, uint32_t* data, uint64_t timeout_cycles) {
    Region& r = *static_cast<Region*>(handle);
    if (r.axil.active && !r.axil.finished) return kRespBusy;
    r.axil = AxilAccess();
    r.axil.active = true;
    r.axil.addr = addr;
    int resp = run_access(r, timeout_cycles);
    *data = r.axil.rdata;
    return resp;
}

}  // extern "C"
