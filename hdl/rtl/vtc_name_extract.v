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
reg [15:0]          kept_mem [0:SLOTS-1];
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
reg [15:0]            cap_bytes = 16'd0;

reg [COUNT_WIDTH-1:0] in_bytes;
reg                   free_found;
reg [SLOT_BITS-1:0]   free_slot;
integer i;

always @* begin
    in_bytes = {COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        in_bytes = in_bytes + {{(COUNT_WIDTH-1){1'b0}}, in_tkeep[i]};
    end
    free_found = 1'b0;
    free_slot = {SLOT_BITS{1'b0}};
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        if (!busy[i]) begin
            free_found = 1'b1;
            free_slot = i[SLOT_BITS-1:0];
        end
    end
end

wire                 first_beat = in_beat && !in_frame;
wire                 beat_slot_kept = first_beat ? free_found : capturing;
wire [SLOT_BITS-1:0] beat_slot = first_beat ? free_slot : cap_slot;
wire [WORD_BITS:0]   beat_word = first_beat ? {(WORD_BITS+1){1'b0}} : cap_word;
wire [15:0]          beat_bytes = (first_beat ? 16'd0 : cap_bytes)
                                  + {{(16-COUNT_WIDTH){1'b0}}, in_bytes};
wire [15:0]          beat_kept = beat_bytes > WINDOW_BYTES ? WINDOW_BYTES[15:0] : beat_bytes;

assign wr_en = in_beat && beat_slot_kept && !beat_word[WORD_BITS];
assign wr_addr = {beat_slot, beat_word[WORD_BITS-1:0]};

// which frames were kept, and where, in frame order until their commands come
reg [SLOT_BITS:0]  frame_mem [0:FRAMES-1];
reg [FRAME_BITS:0] frame_wr_ptr = {(FRAME_BITS+1){1'b0}};
reg [FRAME_BITS:0] frame_rd_ptr = {(FRAME_BITS+1){1'b0}};
wire [SLOT_BITS:0] cmd_frame = frame_mem[frame_rd_ptr[FRAME_BITS-1:0]];
wire               cmd_kept = cmd_frame[SLOT_BITS];
wire [SLOT_BITS-1:0] cmd_slot = cmd_frame[SLOT_BITS-1:0];

// the commands that read, in order: their slots
reg [SLOT_BITS-1:0] job_mem [0:SLOTS-1];
reg [SLOT_BITS:0]   job_wr_ptr = {(SLOT_BITS+1){1'b0}};
reg [SLOT_BITS:0]   job_rd_ptr = {(SLOT_BITS+1){1'b0}};
wire                job_waiting = job_wr_ptr != job_rd_ptr;
wire [SLOT_BITS-1:0] job_slot = job_mem[job_rd_ptr[SLOT_BITS-1:0]];

// a job is done: its slot is freed (set in the reader below)
reg                 job_done;

always @(posedge clk) begin
    if (in_beat) begin
        in_frame <= !in_tlast;
        capturing <= beat_slot_kept;
        cap_slot <= beat_slot;
        cap_word <= beat_word[WORD_BITS] ? beat_word : beat_word + 1'b1;
        cap_bytes <= beat_bytes;
        if (beat_slot_kept) begin
            kept_mem[beat_slot] <= beat_kept;
        end
    end
    if (first_beat) begin
        frame_mem[frame_wr_ptr[FRAME_BITS-1:0]] <= {free_found, free_slot};
        frame_wr_ptr <= frame_wr_ptr + 1'b1;
    end

    skipped <= 1'b0;
    if (cmd_valid) begin
        frame_rd_ptr <= frame_rd_ptr + 1'b1;
        if (cmd_kept) begin
            kind_mem[cmd_slot] <= cmd_kind;
            start_mem[cmd_slot] <= cmd_start;
            end_mem[cmd_slot] <= cmd_end;
            tcp_mem[cmd_slot] <= cmd_tcp;
            tag_mem[cmd_slot] <= cmd_tag;
            if (cmd_kind != KIND_NONE) begin
                job_mem[job_wr_ptr[SLOT_BITS-1:0]] <= cmd_slot;
                job_wr_ptr <= job_wr_ptr + 1'b1;
            end
        end else begin
            skipped <= cmd_kind != KIND_NONE;
        end
    end

    // a slot is taken by a frame's first beat, whole after its last, freed by a command
    // to read nothing or by its job's end (never the slot a first beat takes: it was free)
    if (cmd_valid && cmd_kept && cmd_kind == KIND_NONE) begin
        busy[cmd_slot] <= 1'b0;
    end
    if (job_done) begin
        busy[job_slot] <= 1'b0;
        job_rd_ptr <= job_rd_ptr + 1'b1;
    end
    if (in_beat && beat_slot_kept && in_tlast) begin
        whole[beat_slot] <= 1'b1;
    end
    if (first_beat && free_found) begin
        busy[free_slot] <= 1'b1;
        whole[free_slot] <= in_tlast;
    end

    if (rst) begin
        in_frame <= 1'b0;
        capturing <= 1'b0;
        busy <= {SLOTS{1'b0}};
        whole <= {SLOTS{1'b0}};
        frame_wr_ptr <= {(FRAME_BITS+1){1'b0}};
        frame_rd_ptr <= {(FRAME_BITS+1){1'b0}};
        job_wr_ptr <= {(SLOT_BITS+1){1'b0}};
        job_rd_ptr <= {(SLOT_BITS+1){1'b0}};
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
                 S_ANSWER   = 5'd23;  // the matcher's answer, then the result

localparam [7:0] CR = 8'h0D, LF = 8'h0A, SP = 8'h20, TAB = 8'h09, COLON = 8'h3A,
                 DOT = 8'h2E;

reg [4:0]            state = S_IDLE;
reg [POS_BITS-1:0]   pos = {POS_BITS{1'b0}};      // the byte read
reg [POS_BITS-1:0]   limit = {POS_BITS{1'b0}};    // the payload's end or the bytes kept
reg [POS_BITS-1:0]   base = {POS_BITS{1'b0}};     // the payload's start (DNS: its message's)
reg [POS_BITS-1:0]   ext_end = {POS_BITS{1'b0}};  // TLS: the extensions' end
reg [7:0]            high = 8'd0;                 // a 16-bit field's first byte
reg [15:0]           count = 16'd0;               // bytes of a label or name to come
reg [1:0]            field = 2'd0;                // TLS: which byte of an extension's head
reg                  sni = 1'b0;                  // ... the extension is server_name
reg [47:0]           seen = 48'd0;                // HTTP: the six bytes before, folded
reg                  held_valid = 1'b0;           // a name byte not sent yet
reg [7:0]            held = 8'd0;
reg                  found = 1'b0;                // the frame carries a name
reg                  answer_due = 1'b0;           // the matcher has a name of ours
reg [5:0]            answer = 6'd0;

reg                  cache_valid = 1'b0;
reg [WORD_BITS-1:0]  cache_word = {WORD_BITS{1'b0}};
reg [DATA_WIDTH-1:0] cache = {DATA_WIDTH{1'b0}};
reg                  fetching = 1'b0;
reg [1:0]            fetch_cycle = 2'd0;
reg [WORD_BITS-1:0]  fetch_word = {WORD_BITS{1'b0}};

wire reading = state != S_IDLE && state != S_END && state != S_ANSWER;
wire at_end = pos >= limit;
wire [WORD_BITS-1:0] pos_word = pos[LANE_BITS +: WORD_BITS];
wire hit = cache_valid && cache_word == pos_word;
// a byte is there to read this cycle
wire take = reading && !at_end && hit;
wire [7:0] byte_in = cache[8 * pos[LANE_BITS-1:0] +: 8];
wire [7:0] folded = (byte_in >= 8'h41 && byte_in <= 8'h5A) ? byte_in + 8'h20 : byte_in;
localparam [55:0] HOST = {CR, LF, "host:"};

wire [POS_BITS-1:0] start_pos = {{(POS_BITS-16){1'b0}}, start_mem[job_slot]};
wire [15:0]         job_end = end_mem[job_slot] < kept_mem[job_slot] ? end_mem[job_slot]
                                                                     : kept_mem[job_slot];
wire [POS_BITS-1:0] dns_base = start_pos + (tcp_mem[job_slot] ? 2 : 0);
wire [POS_BITS-1:0] pos_next = pos + 1'b1;
wire [15:0]         field16 = {high, byte_in};

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

always @* begin
    job_done = state == S_ANSWER && !answer_due;
end

always @(posedge clk) begin
    name_valid <= 1'b0;
    name_last <= 1'b0;
    res_valid <= 1'b0;

    // the cache: a beat is read at rd_addr two cycles after it is set, kept the cycle after
    if (fetching) begin
        fetch_cycle <= fetch_cycle + 1'b1;
        if (fetch_cycle == 2'd2) begin
            fetching <= 1'b0;
            cache <= rd_data;
            cache_word <= fetch_word;
            cache_valid <= 1'b1;
        end
    end else if (reading && !at_end && !hit) begin
        fetching <= 1'b1;
        fetch_cycle <= 2'd0;
        fetch_word <= pos_word;
        rd_addr <= {job_slot, pos_word};
    end

    if (app_valid && answer_due) begin
        answer_due <= 1'b0;
        answer <= app;
    end

    case (state)
        S_IDLE: begin
            if (job_waiting && whole[job_slot] && name_ready && !fetching) begin
                cache_valid <= 1'b0;
                limit <= {{(POS_BITS-16){1'b0}}, job_end};
                held_valid <= 1'b0;
                found <= 1'b0;
                answer <= 6'd0;
                seen <= 48'd0;
                base <= kind_mem[job_slot] == KIND_DNS ? dns_base : start_pos;
                case (kind_mem[job_slot])
                    KIND_HTTP: begin
                        pos <= start_pos;
                        state <= S_HTTP;
                    end
                    KIND_TLS: begin
                        pos <= start_pos;
                        state <= S_T_TYPE;
                    end
                    default: begin
                        // a DNS message of at least its header, with a question
                        pos <= dns_base + 4;
                        state <= dns_base + 12 <= {{(POS_BITS-16){1'b0}}, job_end}
                            ? S_D_QD_HI : S_END;
                    end
                endcase
            end
        end

        S_END: begin
            // a name started is ended, its answer to be dropped
            send_held(1'b1, 1'b0, 8'd0);
            state <= S_ANSWER;
        end

        S_ANSWER: begin
            if (!answer_due) begin
                res_valid <= 1'b1;
                res_tag <= tag_mem[job_slot];
                res_named <= found;
                res_app <= found ? answer : 6'd0;
                state <= S_IDLE;
            end
        end

        default: begin
            if (reading && at_end) begin
                no_name;
            end
        end
    endcase

    if (take) begin
        pos <= pos_next;
        case (state)
            S_HTTP: begin
                seen <= {seen[39:0], folded};
                if ({seen, folded} == HOST) begin
                    state <= S_H_LEAD;
                end
            end
            S_H_LEAD: begin
                if (byte_in == CR) begin
                    found <= 1'b1;
                    state <= S_ANSWER;
                end else if (byte_in == COLON) begin
                    state <= S_H_CR;
                end else if (byte_in != SP && byte_in != TAB) begin
                    send_held(1'b0, 1'b1, byte_in);
                    state <= S_H_NAME;
                end
            end
            S_H_NAME: begin
                if (byte_in == CR) begin
                    name_done;
                end else if (byte_in == COLON || byte_in == SP || byte_in == TAB) begin
                    // the name ends here; the line must end too
                    send_held(1'b1, 1'b0, 8'd0);
                    state <= S_H_CR;
                end else begin
                    send_held(1'b0, 1'b1, byte_in);
                end
            end
            S_H_CR: begin
                if (byte_in == CR) begin
                    found <= 1'b1;
                    state <= S_ANSWER;
                end
            end

            S_T_TYPE: begin
                pos <= base + 5;
                state <= byte_in == 8'h16 ? S_T_HELLO : S_END;
            end
            S_T_HELLO: begin
                pos <= base + 43;
                state <= byte_in == 8'h01 ? S_T_SID : S_END;
            end
            S_T_SID: begin
                pos <= pos_next + {{(POS_BITS-8){1'b0}}, byte_in};
                state <= S_T_CS_HI;
            end
            S_T_CS_HI: begin
                high <= byte_in;
                state <= S_T_CS_LO;
            end
            S_T_CS_LO: begin
                pos <= pos_next + {{(POS_BITS-16){1'b0}}, field16};
                state <= S_T_CM;
            end
            S_T_CM: begin
                pos <= pos_next + {{(POS_BITS-8){1'b0}}, byte_in};
                state <= S_T_EL_HI;
            end
            S_T_EL_HI: begin
                high <= byte_in;
                state <= S_T_EL_LO;
            end
            S_T_EL_LO: begin
                ext_end <= pos_next + {{(POS_BITS-16){1'b0}}, field16};
                field <= 2'd0;
                state <= S_T_EXT;
            end
            S_T_EXT: begin
                field <= field + 1'b1;
                case (field)
                    2'd0: high <= byte_in;
                    2'd1: begin
                        sni <= field16 == 16'h0000;
                    end
                    2'd2: high <= byte_in;
                    default: begin
                        if (sni) begin
                            // list length (2), name type (1): host_name is 0, length (2)
                            pos <= pos_next + 2;
                            state <= S_T_SN;
                        end else begin
                            pos <= pos_next + {{(POS_BITS-16){1'b0}}, field16};
                        end
                    end
                endcase
            end
            S_T_SN: begin
                state <= byte_in == 8'h00 ? S_T_SN_HI : S_END;
            end
            S_T_SN_HI: begin
                high <= byte_in;
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
                if (count == 16'd1) begin
                    // the last byte: out with it
                    send_held(1'b0, 1'b1, byte_in);
                    state <= S_END;
                    found <= 1'b1;
                end else begin
                    send_held(1'b0, 1'b1, byte_in);
                end
            end

            S_D_QD_HI: begin
                high <= byte_in;
                state <= S_D_QD_LO;
            end
            S_D_QD_LO: begin
                pos <= base + 12;
                state <= field16 == 16'd0 ? S_END : S_D_LEN;
            end
            S_D_LEN: begin
                count <= {8'd0, byte_in};
                if (byte_in == 8'd0) begin
                    if (held_valid) begin
                        name_done;
                    end else begin
                        // the root: an empty name
                        found <= 1'b1;
                        state <= S_ANSWER;
                    end
                end else if (byte_in >= 8'h40) begin
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
                send_held(1'b0, 1'b1, byte_in);
                if (count == 16'd1) begin
                    state <= S_D_LEN;
                end
            end
            default: begin
            end
        endcase
    end

    // TLS: an extension's head is read only while it lies before the extensions' end
    if (state == S_T_EXT && field == 2'd0 && !(pos + 4 <= ext_end)) begin
        no_name;
    end

    if (rst) begin
        state <= S_IDLE;
        fetching <= 1'b0;
        cache_valid <= 1'b0;
        held_valid <= 1'b0;
        answer_due <= 1'b0;
        name_valid <= 1'b0;
        name_last <= 1'b0;
        res_valid <= 1'b0;
    end
end

endmodule

`resetall
