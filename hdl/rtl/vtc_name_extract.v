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
 * The vTC's name extractor: the host name a frame carries, read from the
 * frame's first WINDOW_BYTES bytes after the frame, a byte a cycle, and
 * sent to the name matcher (vtc_name_match); the matcher's answer comes
 * back out with the frame's tag (doc/source/contributor/vtc.rst,
 * "Applications"; bit-exact model: hdl/tests/vtc_names.py, name_of on
 * the frame's first NAME_WINDOW bytes).
 *
 * Frames come in as the module sees them (in_beat).  A frame's first
 * WINDOW_BYTES bytes are written into a free slot of a buffer of SLOTS
 * slots as it comes; when no slot is free the frame is not kept.  Every
 * frame then gets one command, in frame order, a cycle or more after its
 * first beat (after its end or not): what to read (cmd_kind: nothing, the
 * HTTP Host, the TLS ClientHello's server name, the DNS question's name),
 * where its payload starts and ends (frame offsets), whether DNS runs over
 * TCP (two length bytes first), and a tag.  A command to read nothing
 * frees the frame's slot at once; a command to read a frame that was not
 * kept pulses `skipped`.  The others wait in frame order until their frame
 * is whole and the matcher takes a name (name_ready, looked at before a
 * name's first byte: the matcher keeps it high to the last), then the name
 * is read, sent a byte a cycle (name_last on its last byte), and the
 * result pulses res_valid with the tag: res_named when the frame carries a
 * name (res_app: the matcher's answer, 0 for an empty name), not when it
 * carries none or it lies past the payload's end or the bytes kept.  A name
 * sent and then found not to be one (a Host line without its end) is still
 * answered by the matcher, and its answer dropped.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_name_extract #
(
    // AXI4-Stream data width in bits (a multiple of 8, at most 64)
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // bytes of a frame kept, from its start (a power of two)
    parameter WINDOW_BYTES = 1024,
    // frames kept at once (a power of two, at least 2)
    parameter SLOTS = 4,
    // commands ahead of frames at most: frames whose command has not come (a power of two)
    parameter FRAMES = 64,
    parameter TAG_WIDTH = 16
)
(
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] in_tdata,
    input  wire [KEEP_WIDTH-1:0] in_tkeep,
    input  wire                  in_tlast,
    input  wire                  in_beat,

    input  wire                  cmd_valid,
    input  wire [1:0]            cmd_kind,
    input  wire [15:0]           cmd_start,
    input  wire [15:0]           cmd_end,
    input  wire                  cmd_tcp,
    input  wire [TAG_WIDTH-1:0]  cmd_tag,
    output reg                   skipped = 1'b0,
    output reg  [TAG_WIDTH-1:0]  skipped_tag = {TAG_WIDTH{1'b0}},

    output reg  [7:0]            name_byte = 8'd0,
    output reg                   name_valid = 1'b0,
    output reg                   name_last = 1'b0,
    input  wire                  name_ready,
    input  wire                  app_valid,
    input  wire [5:0]            app,

    output reg                   res_valid = 1'b0,
    output reg  [TAG_WIDTH-1:0]  res_tag = {TAG_WIDTH{1'b0}},
    output reg                   res_named = 1'b0,
    output reg  [5:0]            res_app = 6'd0
);

localparam [1:0] KIND_NONE = 2'd0;
localparam [1:0] KIND_HTTP = 2'd1;
localparam [1:0] KIND_TLS = 2'd2;
localparam [1:0] KIND_DNS = 2'd3;

localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam WORDS = WINDOW_BYTES / KEEP_WIDTH;
localparam WORD_BITS = $clog2(WORDS);
localparam SLOT_BITS = $clog2(SLOTS);
localparam FRAME_BITS = $clog2(FRAMES);
// frame offsets the reader walks: past the window by at most a TLS extension's length
localparam POS_BITS = 18;
localparam COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);

// ---- the buffer: a RAM of SLOTS * WORDS beats ---------------------------

reg  [SLOT_BITS+WORD_BITS-1:0] rd_addr = {(SLOT_BITS+WORD_BITS){1'b0}};
wire [DATA_WIDTH-1:0]          rd_data;
wire                           wr_en;
wire [SLOT_BITS+WORD_BITS-1:0] wr_addr;

vtc_flow_ram #(.WIDTH(DATA_WIDTH), .ADDR_WIDTH(SLOT_BITS + WORD_BITS)) buffer (
    .clk(clk), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(in_tdata),
    .rd_addr(rd_addr), .rd_data(rd_data));

// per slot: in use, its frame whole, the bytes kept, and its command
reg [SLOTS-1:0]     busy = {SLOTS{1'b0}};
reg [SLOTS-1:0]     whole = {SLOTS{1'b0}};
// the last beat kept (its index, its bytes): the bytes kept are index * KEEP_WIDTH + bytes
reg [WORD_BITS+COUNT_WIDTH-1:0] kept_mem [0:SLOTS-1];
reg [1:0]           kind_mem [0:SLOTS-1];
reg [15:0]          start_mem [0:SLOTS-1];
reg [15:0]          end_mem [0:SLOTS-1];
reg                 tcp_mem [0:SLOTS-1];
reg [TAG_WIDTH-1:0] tag_mem [0:SLOTS-1];

// ---- capture ------------------------------------------------------------

reg                   in_frame = 1'b0;   // a frame's beats are coming
reg                   capturing = 1'b0;  // ... into cap_slot
reg [SLOT_BITS-1:0]   cap_slot = {SLOT_BITS{1'b0}};
reg [WORD_BITS:0]     cap_word = {(WORD_BITS+1){1'b0}};  // saturates at WORDS
// cap_word + 1 (saturating), kept beside it: a beat's next word is a choice between
// registers, not an adder after the first-beat choice
reg [WORD_BITS:0]     cap_word_next = {{WORD_BITS{1'b0}}, 1'b1};

reg [COUNT_WIDTH-1:0] in_bytes;
// the lowest free slot, registered: worked out from `busy` and the slot a first beat takes
// this cycle (a slot freed this cycle is found a cycle later: the search does not wait for
// the reader's state, which was its worst path)
reg                   free_found = 1'b1;
reg [SLOT_BITS-1:0]   free_slot = {SLOT_BITS{1'b0}};
reg [SLOTS-1:0]       busy_next;
reg [SLOTS-1:0]       busy_taken;
reg                   idle_found;
reg [SLOT_BITS-1:0]   idle_slot;
reg                   taken_found;
reg [SLOT_BITS-1:0]   taken_slot;
reg                   next_found;
reg [SLOT_BITS-1:0]   next_slot;
integer i;

always @* begin
    in_bytes = {COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        in_bytes = in_bytes + {{(COUNT_WIDTH-1){1'b0}}, in_tkeep[i]};
    end
end

wire                 first_beat = in_beat && !in_frame;
wire                 beat_slot_kept = first_beat ? free_found : capturing;
wire [SLOT_BITS-1:0] beat_slot = first_beat ? free_slot : cap_slot;
wire [WORD_BITS:0]   beat_word = first_beat ? {(WORD_BITS+1){1'b0}} : cap_word;

assign wr_en = in_beat && beat_slot_kept && !beat_word[WORD_BITS];
assign wr_addr = {beat_slot, beat_word[WORD_BITS-1:0]};

// which frames were kept, and where, in frame order until their commands come
reg [SLOT_BITS:0]  frame_mem [0:FRAMES-1];
reg [FRAME_BITS:0] frame_wr_ptr = {(FRAME_BITS+1){1'b0}};
reg [FRAME_BITS:0] frame_rd_ptr = {(FRAME_BITS+1){1'b0}};

// a command, registered with its frame's entry (read as it comes: a cycle or more after the
// frame's first beat wrote it)
reg                   cmd_q = 1'b0;
reg [1:0]             cmd_kind_q = KIND_NONE;
reg [15:0]            cmd_start_q = 16'd0;
reg [15:0]            cmd_end_q = 16'd0;
reg                   cmd_tcp_q = 1'b0;
reg [TAG_WIDTH-1:0]   cmd_tag_q = {TAG_WIDTH{1'b0}};
reg [SLOT_BITS:0]     cmd_frame_q = {(SLOT_BITS+1){1'b0}};
wire                  cmd_kept = cmd_frame_q[SLOT_BITS];
wire [SLOT_BITS-1:0]  cmd_slot = cmd_frame_q[SLOT_BITS-1:0];

// the commands that read, in order: their slots
reg [SLOT_BITS-1:0] job_mem [0:SLOTS-1];
reg [SLOT_BITS:0]   job_wr_ptr = {(SLOT_BITS+1){1'b0}};
reg [SLOT_BITS:0]   job_rd_ptr = {(SLOT_BITS+1){1'b0}};
wire                job_waiting = job_wr_ptr != job_rd_ptr;
wire [SLOT_BITS-1:0] job_slot = job_mem[job_rd_ptr[SLOT_BITS-1:0]];

// a job is done: its slot is freed (set in the reader below)
reg                 job_done;
// the queue's head, registered (the reader's set-up starts from registers); the job's slot
// while it runs
reg [SLOT_BITS-1:0] cur_slot = {SLOT_BITS{1'b0}};
reg                 cur_waiting = 1'b0;

// a slot is taken by a frame's first beat, freed by a command to read nothing or by its
// job's end (never the slot a first beat takes: it was free)
always @* begin
    // slot by slot (a write at a variable index is a wide shifter to yosys)
    for (i = 0; i < SLOTS; i = i + 1) begin
        busy_next[i] = busy[i];
        if (cmd_q && cmd_kept && cmd_kind_q == KIND_NONE && cmd_slot == i[SLOT_BITS-1:0]) begin
            busy_next[i] = 1'b0;
        end
        if (job_done && cur_slot == i[SLOT_BITS-1:0]) begin
            busy_next[i] = 1'b0;
        end
        // the search without a take, and with the registered free slot taken
        busy_taken[i] = busy[i] || (free_found && free_slot == i[SLOT_BITS-1:0]);
        if (first_beat && free_found && free_slot == i[SLOT_BITS-1:0]) begin
            busy_next[i] = 1'b1;
        end
    end
    idle_found = 1'b0;
    idle_slot = {SLOT_BITS{1'b0}};
    taken_found = 1'b0;
    taken_slot = {SLOT_BITS{1'b0}};
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        if (!busy[i]) begin
            idle_found = 1'b1;
            idle_slot = i[SLOT_BITS-1:0];
        end
        if (!busy_taken[i]) begin
            taken_found = 1'b1;
            taken_slot = i[SLOT_BITS-1:0];
        end
    end
    // both searches start at registers; a first beat only chooses between them
    next_found = first_beat ? taken_found : idle_found;
    next_slot = first_beat ? taken_slot : idle_slot;
end

always @(posedge clk) begin
    if (in_beat) begin
        in_frame <= !in_tlast;
        capturing <= beat_slot_kept;
        cap_slot <= beat_slot;
        // (beat_word, plus one unless saturated: 1 after a first beat)
        cap_word <= first_beat ? {{WORD_BITS{1'b0}}, 1'b1} : cap_word_next;
        cap_word_next <= first_beat ? {{(WORD_BITS-1){1'b0}}, 2'd2}
            : cap_word_next[WORD_BITS] ? cap_word_next : cap_word_next + 1'b1;
        if (beat_slot_kept && !beat_word[WORD_BITS]) begin
            kept_mem[beat_slot] <= {beat_word[WORD_BITS-1:0], in_bytes};
        end
    end
    if (first_beat) begin
        frame_mem[frame_wr_ptr[FRAME_BITS-1:0]] <= {free_found, free_slot};
        frame_wr_ptr <= frame_wr_ptr + 1'b1;
    end

    cmd_q <= cmd_valid;
    if (cmd_valid) begin
        frame_rd_ptr <= frame_rd_ptr + 1'b1;
        cmd_frame_q <= frame_mem[frame_rd_ptr[FRAME_BITS-1:0]];
        cmd_kind_q <= cmd_kind;
        cmd_start_q <= cmd_start;
        cmd_end_q <= cmd_end;
        cmd_tcp_q <= cmd_tcp;
        cmd_tag_q <= cmd_tag;
    end

    skipped <= 1'b0;
    if (cmd_q) begin
        if (cmd_kept) begin
            kind_mem[cmd_slot] <= cmd_kind_q;
            start_mem[cmd_slot] <= cmd_start_q;
            end_mem[cmd_slot] <= cmd_end_q;
            tcp_mem[cmd_slot] <= cmd_tcp_q;
            tag_mem[cmd_slot] <= cmd_tag_q;
            if (cmd_kind_q != KIND_NONE) begin
                job_mem[job_wr_ptr[SLOT_BITS-1:0]] <= cmd_slot;
                job_wr_ptr <= job_wr_ptr + 1'b1;
            end
        end else begin
            skipped <= cmd_kind_q != KIND_NONE;
            skipped_tag <= cmd_tag_q;
        end
    end

    busy <= busy_next;
    free_found <= next_found;
    free_slot <= next_slot;
    if (job_done) begin
        job_rd_ptr <= job_rd_ptr + 1'b1;
    end
    // a slot's frame is whole after its last beat (cleared by the first)
    for (i = 0; i < SLOTS; i = i + 1) begin
        if (in_beat && beat_slot_kept && beat_slot == i[SLOT_BITS-1:0]) begin
            whole[i] <= in_tlast;
        end
    end

    if (rst) begin
        in_frame <= 1'b0;
        capturing <= 1'b0;
        busy <= {SLOTS{1'b0}};
        free_found <= 1'b1;
        free_slot <= {SLOT_BITS{1'b0}};
        whole <= {SLOTS{1'b0}};
        frame_wr_ptr <= {(FRAME_BITS+1){1'b0}};
        frame_rd_ptr <= {(FRAME_BITS+1){1'b0}};
        job_wr_ptr <= {(SLOT_BITS+1){1'b0}};
        job_rd_ptr <= {(SLOT_BITS+1){1'b0}};
        cmd_q <= 1'b0;
        skipped <= 1'b0;
    end
end

// ---- the reader: the job's bytes, a byte a cycle, through a one-beat cache ----

localparam [4:0] S_IDLE     = 5'd0,
                 S_HTTP     = 5'd1,   // looking for CR LF "host:"
                 S_H_LEAD   = 5'd2,   // spaces and tabs before the name
                 S_H_NAME   = 5'd3,   // the name, to ':', ' ', TAB or CR
                 S_H_CR     = 5'd4,   // the line's CR after the name
                 S_T_TYPE   = 5'd5,   // TLS: a handshake record (payload[0])
                 S_T_HELLO  = 5'd6,   // a ClientHello (payload[5])
                 S_T_SID    = 5'd7,   // the session id's length (payload[43])
                 S_T_CS_HI  = 5'd8,   // the cipher suites' length
                 S_T_CS_LO  = 5'd9,
                 S_T_CM     = 5'd10,  // the compression methods' length
                 S_T_EL_HI  = 5'd11,  // the extensions' length
                 S_T_EL_LO  = 5'd12,
                 S_T_EXT    = 5'd13,  // an extension's type and length
                 S_T_SN     = 5'd14,  // server_name: its name type
                 S_T_SN_HI  = 5'd15,  // its length
                 S_T_SN_LO  = 5'd16,
                 S_T_NAME   = 5'd17,  // its bytes
                 S_D_QD_HI  = 5'd18,  // DNS: the questions' count
                 S_D_QD_LO  = 5'd19,
                 S_D_LEN    = 5'd20,  // a label's length
                 S_D_LABEL  = 5'd21,  // its bytes
                 S_END      = 5'd22,  // the name's last byte out, if one was started
                 S_ANSWER   = 5'd23,  // the matcher's answer, then the result
                 S_SETTLE   = 5'd24,  // the queue's next head registered
                 S_SETUP    = 5'd25,  // the job's bytes kept and base
                 S_LIMIT    = 5'd26,  // its limit
                 S_FIRST    = 5'd27;  // its first position and state

localparam [7:0] CR = 8'h0D, LF = 8'h0A, SP = 8'h20, TAB = 8'h09, COLON = 8'h3A,
                 DOT = 8'h2E;

reg [4:0]            state = S_IDLE;
// the job, copied from its slot's command as it starts
reg [1:0]            job_kind = KIND_NONE;
reg [15:0]           job_start = 16'd0;
reg [15:0]           job_end = 16'd0;
reg [WORD_BITS+COUNT_WIDTH-1:0] job_last = {(WORD_BITS+COUNT_WIDTH){1'b0}};
reg [15:0]           job_kept = 16'd0;
reg                  job_tcp = 1'b0;
reg [POS_BITS-1:0]   limit = {POS_BITS{1'b0}};    // the payload's end or the bytes kept
reg [POS_BITS-1:0]   base = {POS_BITS{1'b0}};     // the payload's start (DNS: its message's)
// where the reader jumps to from base, worked out ahead
reg [POS_BITS-1:0]   base_4 = {POS_BITS{1'b0}};
reg [POS_BITS-1:0]   base_5 = {POS_BITS{1'b0}};
reg [POS_BITS-1:0]   base_12 = {POS_BITS{1'b0}};
reg [POS_BITS-1:0]   base_43 = {POS_BITS{1'b0}};
reg                  dns_fits = 1'b0;
reg [POS_BITS-1:0]   ext_last = {POS_BITS{1'b0}}; // TLS: where an extension's head may start
reg [7:0]            high = 8'd0;                 // a 16-bit field's first byte
reg [15:0]           count = 16'd0;               // bytes of a label or name to come
reg [1:0]            field = 2'd0;                // TLS: which byte of an extension's head
reg                  sni = 1'b0;                  // ... the extension is server_name
// HTTP: the bytes before match the first 1..6 of CR LF "host:" (ASCII case folded)
reg [6:1]            seen = 6'd0;
reg                  held_valid = 1'b0;           // a name byte not sent yet
reg [7:0]            held = 8'd0;
reg                  found = 1'b0;                // the frame carries a name
reg                  answer_due = 1'b0;           // the matcher has a name of ours
reg [5:0]            answer = 6'd0;

// the byte stage: the byte at b_pos (b_eof: b_pos is at or past the limit), registered
// from the cache; the bytes after it come from rd_pos on, a byte a cycle while the cache
// holds them; a jump (seek) empties the stage and restarts it at its position
reg [POS_BITS-1:0]   rd_pos = {POS_BITS{1'b0}};
reg                  b_valid = 1'b0;
reg                  b_eof = 1'b0;
reg [7:0]            b_byte = 8'd0;
reg [POS_BITS-1:0]   b_pos = {POS_BITS{1'b0}};
reg [POS_BITS-1:0]   b_next = {POS_BITS{1'b0}};  // b_pos + 1
// what the FSM asks of the byte, worked out as it is loaded
reg                  b_cr = 1'b0;
reg                  b_lf = 1'b0;
reg                  b_colon = 1'b0;
reg                  b_blank = 1'b0;  // a space or a tab
reg                  b_zero = 1'b0;
reg                  b_pointer = 1'b0;  // 0x40 or more: no DNS label length
reg                  b_h = 1'b0;
reg                  b_o = 1'b0;
reg                  b_s = 1'b0;
reg                  b_t = 1'b0;
reg                  b_handshake = 1'b0;  // 0x16
reg                  b_one = 1'b0;

reg                  cache_valid = 1'b0;
reg [WORD_BITS-1:0]  cache_word = {WORD_BITS{1'b0}};
reg [DATA_WIDTH-1:0] cache = {DATA_WIDTH{1'b0}};
reg                  fetching = 1'b0;
reg [1:0]            fetch_cycle = 2'd0;
reg [WORD_BITS-1:0]  fetch_word = {WORD_BITS{1'b0}};

// the states before S_END (0-21: not 22-23, 10110-10111, nor 24-27, 110xx), decoded
wire reading = !(state[4] && (state[3] || (state[2] && state[1])));
wire rd_at_end = rd_pos >= limit;
wire [WORD_BITS-1:0] rd_word = rd_pos[LANE_BITS +: WORD_BITS];
wire rd_hit = cache_valid && cache_word == rd_word;
// the byte stage's byte is taken this cycle
wire take = reading && state != S_IDLE && b_valid && !b_eof;
wire [7:0] rd_byte = cache[8 * rd_pos[LANE_BITS-1:0] +: 8];
wire [15:0]         field16 = {high, b_byte};
// a jump from the byte after this one: over a length byte's bytes, a length field's bytes,
// or server_name's list length and name type (2)
wire [15:0]         skip = state == S_T_SID || state == S_T_CM ? {8'd0, b_byte}
                         : state == S_T_EXT && sni ? 16'd2 : field16;
// a jump is made the cycle after (jumping: rd_pos <= jump_from + jump_by; nothing read)
reg                 jumping = 1'b0;
reg [POS_BITS-1:0]  jump_from = {POS_BITS{1'b0}};
reg [15:0]          jump_by = 16'd0;

// send the held byte (the name's last when `last`), hold `next` when `hold`
task send_held(input last, input hold, input [7:0] next);
    begin
        if (held_valid) begin
            name_valid <= 1'b1;
            name_byte <= held;
            name_last <= last;
            if (last) begin
                answer_due <= 1'b1;
            end
        end
        held_valid <= hold;
        held <= next;
    end
endtask

// the frame carries no name: out once a name sent is answered
task no_name;
    begin
        found <= 1'b0;
        state <= S_END;
    end
endtask

// the name is whole (its held byte the last)
task name_done;
    begin
        send_held(1'b1, 1'b0, 8'd0);
        found <= 1'b1;
        state <= S_ANSWER;
    end
endtask

// read on from `to` (a jump of 0 from there: rd_pos has two sources only)
task seek(input [POS_BITS-1:0] to);
    begin
        jumping <= 1'b1;
        jump_from <= to;
        jump_by <= 16'd0;
        b_valid <= 1'b0;
    end
endtask

// read on `skip` bytes after the next
task jump;
    begin
        jumping <= 1'b1;
        jump_from <= b_next;
        jump_by <= skip;
        b_valid <= 1'b0;
    end
endtask

always @* begin
    job_done = state == S_ANSWER && !answer_due;
end

always @(posedge clk) begin
    name_valid <= 1'b0;
    name_last <= 1'b0;
    res_valid <= 1'b0;
    cur_slot <= job_slot;
    cur_waiting <= job_waiting;

    // the cache: a beat is read at rd_addr two cycles after it is set, kept the cycle after
    if (fetching) begin
        fetch_cycle <= fetch_cycle + 1'b1;
        if (fetch_cycle == 2'd2) begin
            fetching <= 1'b0;
            cache <= rd_data;
            cache_word <= fetch_word;
            cache_valid <= 1'b1;
        end
    end else if (reading && state != S_IDLE && !jumping && !rd_at_end && !rd_hit) begin
        fetching <= 1'b1;
        fetch_cycle <= 2'd0;
        fetch_word <= rd_word;
        rd_addr <= {cur_slot, rd_word};
    end

    // the byte stage, refilled when empty or taken (not while a jump is made)
    jumping <= 1'b0;
    if (jumping) begin
        rd_pos <= jump_from + {{(POS_BITS-16){1'b0}}, jump_by};
    end else if (!b_valid || take) begin
        b_pos <= rd_pos;
        if (rd_at_end) begin
            b_valid <= 1'b1;
            b_eof <= 1'b1;
        end else if (rd_hit) begin
            b_valid <= 1'b1;
            b_eof <= 1'b0;
            b_byte <= rd_byte;
            b_cr <= rd_byte == CR;
            b_lf <= rd_byte == LF;
            b_colon <= rd_byte == COLON;
            b_blank <= rd_byte == SP || rd_byte == TAB;
            b_zero <= rd_byte == 8'h00;
            b_pointer <= rd_byte[7] || rd_byte[6];  // 0x40 or more
            b_h <= rd_byte == "h" || rd_byte == "H";
            b_o <= rd_byte == "o" || rd_byte == "O";
            b_s <= rd_byte == "s" || rd_byte == "S";
            b_t <= rd_byte == "t" || rd_byte == "T";
            b_handshake <= rd_byte == 8'h16;
            b_one <= rd_byte == 8'h01;
            rd_pos <= rd_pos + 1'b1;
            b_next <= rd_pos + 1'b1;
        end else begin
            b_valid <= 1'b0;
        end
    end

    if (app_valid && answer_due) begin
        answer_due <= 1'b0;
        answer <= app;
    end

    case (state)
        S_IDLE: begin
            b_valid <= 1'b0;
            if (cur_waiting && whole[cur_slot] && name_ready && !fetching) begin
                job_kind <= kind_mem[cur_slot];
                job_start <= start_mem[cur_slot];
                job_end <= end_mem[cur_slot];
                job_last <= kept_mem[cur_slot];
                job_tcp <= tcp_mem[cur_slot];
                state <= S_SETUP;
            end
        end

        S_SETUP: begin
            b_valid <= 1'b0;
            cache_valid <= 1'b0;
            job_kept <= {{(16-WORD_BITS-LANE_BITS){1'b0}}, job_last[COUNT_WIDTH +: WORD_BITS],
                         {LANE_BITS{1'b0}}}
                + {{(16-COUNT_WIDTH){1'b0}}, job_last[COUNT_WIDTH-1:0]};
            base <= {{(POS_BITS-16){1'b0}}, job_start}
                + (job_kind == KIND_DNS && job_tcp ? 2 : 0);
            held_valid <= 1'b0;
            found <= 1'b0;
            answer <= 6'd0;
            seen <= 6'd0;
            state <= S_LIMIT;
        end

        S_LIMIT: begin
            limit <= {{(POS_BITS-16){1'b0}}, job_end < job_kept ? job_end : job_kept};
            base_4 <= base + 4;
            base_5 <= base + 5;
            base_12 <= base + 12;
            base_43 <= base + 43;
            state <= S_FIRST;
        end

        S_FIRST: begin
            case (job_kind)
                KIND_HTTP: begin
                    seek(base);
                    state <= S_HTTP;
                end
                KIND_TLS: begin
                    seek(base);
                    state <= S_T_TYPE;
                end
                default: begin
                    // a DNS message of at least its header, with a question
                    seek(base_4);
                    state <= S_D_QD_HI;
                end
            endcase
        end

        S_END: begin
            // a name started is ended, its answer to be dropped
            send_held(1'b1, 1'b0, 8'd0);
            state <= S_ANSWER;
        end

        S_ANSWER: begin
            if (!answer_due) begin
                res_valid <= 1'b1;
                res_tag <= tag_mem[cur_slot];
                res_named <= found;
                res_app <= found ? answer : 6'd0;
                state <= S_SETTLE;
            end
        end

        S_SETTLE: begin
            state <= S_IDLE;
        end

        default: begin
            if (b_valid && b_eof) begin
                no_name;
            end
        end
    endcase

    if (take) begin
        case (state)
            S_HTTP: begin
                seen <= {seen[5] && b_t, seen[4] && b_s, seen[3] && b_o, seen[2] && b_h,
                         seen[1] && b_lf, b_cr};
                if (seen[6] && b_colon) begin
                    state <= S_H_LEAD;
                end
            end
            S_H_LEAD: begin
                if (b_cr) begin
                    found <= 1'b1;
                    state <= S_ANSWER;
                end else if (b_colon) begin
                    state <= S_H_CR;
                end else if (!b_blank) begin
                    send_held(1'b0, 1'b1, b_byte);
                    state <= S_H_NAME;
                end
            end
            S_H_NAME: begin
                if (b_cr) begin
                    name_done;
                end else if (b_colon || b_blank) begin
                    // the name ends here; the line must end too
                    send_held(1'b1, 1'b0, 8'd0);
                    state <= S_H_CR;
                end else begin
                    send_held(1'b0, 1'b1, b_byte);
                end
            end
            S_H_CR: begin
                if (b_cr) begin
                    found <= 1'b1;
                    state <= S_ANSWER;
                end
            end

            S_T_TYPE: begin
                seek(base_5);
                state <= b_handshake ? S_T_HELLO : S_END;
            end
            S_T_HELLO: begin
                seek(base_43);
                state <= b_one ? S_T_SID : S_END;
            end
            S_T_SID: begin
                jump;
                state <= S_T_CS_HI;
            end
            S_T_CS_HI: begin
                high <= b_byte;
                state <= S_T_CS_LO;
            end
            S_T_CS_LO: begin
                jump;
                state <= S_T_CM;
            end
            S_T_CM: begin
                jump;
                state <= S_T_EL_HI;
            end
            S_T_EL_HI: begin
                high <= b_byte;
                state <= S_T_EL_LO;
            end
            S_T_EL_LO: begin
                // the extensions end at b_next + length: a head starts 4 or more before
                ext_last <= b_pos + {{(POS_BITS-16){1'b0}}, field16} - 3;
                field <= 2'd0;
                state <= S_T_EXT;
            end
            S_T_EXT: begin
                field <= field + 1'b1;
                case (field)
                    2'd0: high <= b_byte;
                    2'd1: begin
                        sni <= field16 == 16'h0000;
                    end
                    2'd2: high <= b_byte;
                    default: begin
                        if (sni) begin
                            // list length (2), name type (1): host_name is 0, length (2)
                            jump;
                            state <= S_T_SN;
                        end else begin
                            jump;
                        end
                    end
                endcase
            end
            S_T_SN: begin
                state <= b_zero ? S_T_SN_HI : S_END;
            end
            S_T_SN_HI: begin
                high <= b_byte;
                state <= S_T_SN_LO;
            end
            S_T_SN_LO: begin
                count <= field16;
                if (field16 == 16'd0) begin
                    found <= 1'b1;
                    state <= S_ANSWER;
                end else begin
                    state <= S_T_NAME;
                end
            end
            S_T_NAME: begin
                count <= count - 1'b1;
                send_held(1'b0, 1'b1, b_byte);
                if (count == 16'd1) begin
                    // the last byte: out with it
                    state <= S_END;
                    found <= 1'b1;
                end
            end

            S_D_QD_HI: begin
                high <= b_byte;
                state <= S_D_QD_LO;
            end
            S_D_QD_LO: begin
                seek(base_12);
                state <= field16 == 16'd0 ? S_END : S_D_LEN;
            end
            S_D_LEN: begin
                count <= {8'd0, b_byte};
                if (b_zero) begin
                    if (held_valid) begin
                        name_done;
                    end else begin
                        // the root: an empty name
                        found <= 1'b1;
                        state <= S_ANSWER;
                    end
                end else if (b_pointer) begin
                    no_name;
                end else begin
                    if (held_valid) begin
                        send_held(1'b0, 1'b1, DOT);
                    end
                    state <= S_D_LABEL;
                end
            end
            S_D_LABEL: begin
                count <= count - 1'b1;
                send_held(1'b0, 1'b1, b_byte);
                if (count == 16'd1) begin
                    state <= S_D_LEN;
                end
            end
            default: begin
            end
        endcase
    end

    // DNS: a message of at least its header (dns_fits, registered from base_12 and the limit
    // set two cycles before the first state reads it)
    dns_fits <= base_12 <= limit;
    if (state == S_D_QD_HI && !dns_fits) begin
        no_name;
    end

    // TLS: an extension's head is read only while it lies 4 or more before the extensions'
    // end (a head at the limit is no name either)
    if (state == S_T_EXT && field == 2'd0 && b_valid && b_pos > ext_last) begin
        no_name;
    end

    if (rst) begin
        state <= S_IDLE;
        fetching <= 1'b0;
        cache_valid <= 1'b0;
        b_valid <= 1'b0;
        jumping <= 1'b0;
        held_valid <= 1'b0;
        answer_due <= 1'b0;
        name_valid <= 1'b0;
        name_last <= 1'b0;
        res_valid <= 1'b0;
        cur_waiting <= 1'b0;
    end
end

endmodule

`resetall
