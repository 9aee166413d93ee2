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
 * vTC flow table: looks each parsed frame's flow up, inspects, inserts,
 * ages, and decides how the frame leaves.
 *
 * 2**BUCKET_BITS buckets of 4 ways, one vtc_flow_ram per way, read in
 * parallel.  A request goes through a pipeline, one stage per cycle, so that
 * every stage fits a 156.25 MHz cycle (6.4 ns):
 *   read     the ways' RAMs read the bucket (the request is registered);
 *   entry    the RAMs' output registers (vtc_flow_ram reads in two cycles),
 *            with the timestamp and the clearing flag the request is
 *            decided by;
 *   compare  per way, the key in KEY_CHUNK-bit chunks, each equality
 *            registered; free, expired and the inspection rule per way;
 *   hit      per way, hit (all chunks equal); the lowest hit, free and
 *            expired way, one-hot;
 *   decide   the hit / insert / evict / fail decision: the entry to write,
 *            the events (registered before they reach the counters), the
 *            class before and after;
 *   write    the entry is written back; the class's policy is looked up;
 *   answer   the marking and the checksum: decision_valid.
 * The events leave 5 cycles after the request, the decision 7.
 * Hazards: a request reads its bucket at the end of its first cycle and
 * writes it back 5 cycles later, so the next request of the same bucket (of
 * the same flow or not) sees that write if it comes at least 6 cycles later.  Only parsed requests use the table
 * (unparsed ones, which may come every cycle, read and write nothing), and
 * vtc_parser parses only windows of at least MIN_PARSE_BYTES = 42 bytes,
 * i.e. 6 beats at DATA_WIDTH 64 (more at narrower widths): table requests
 * are at least 6 cycles apart, so no write needs forwarding.  A longer
 * pipeline, or a shorter minimum frame, would need it.
 * Stateful rules: a UDP RTP candidate stores its SSRC and sequence number in
 * the entry (PENDING); a later one of that SSRC 1..16 ahead makes the flow
 * RTP (compared per way in the compare stage, the hit way's taken in decide).
 * An HTTP CONNECT or SMTP flow stays inspected (PENDING as REFINE) and
 * becomes TLS once a TLS record is seen, a STUN flow over UDP DTLS once a
 * DTLS record is (event_refined).  A flow stored by a
 * TCP SYN (OPENED) whose first inspected payload is another protocol's
 * message (req_other, no match: SPOKE) is not classified later by an HTTP,
 * TLS, SSH or SMTP match (an upgrade or a tunnel).  An unknown flow
 * that ends (req_end) or is evicted is guessed by the port guess stored in
 * its entry (GUESS, from vtc_port_guess on the request's key), once.
 * Rules (hdl/README.md, hdl/tests/vtc_model.py): a hit inspects the packet
 * if the flow is still unknown and has been inspected fewer than
 * INSPECT_PACKETS times; a miss takes the lowest free way, else the lowest
 * expired way (idle for more than FLOW_TIMEOUT ticks of FLOW_TICK_CYCLES
 * cycles), else fails.  After a reset the table is cleared, one bucket per
 * cycle; until then every parsed frame counts as a failed insertion.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_flow_table #
(
    parameter BUCKET_BITS = 10,
    // the list of names being read: 2**NAME_TAG_WIDTH entries
    parameter NAME_TAG_WIDTH = 3,
    parameter INSPECT_PACKETS = 8,
    parameter FLOW_TIMEOUT = 4096,
    parameter FLOW_TICK_CYCLES = 1048576
)
(
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   req_valid,
    input  wire                   req_parsed,
    input  wire [104:0]           req_key,
    input  wire [BUCKET_BITS-1:0] req_bucket,
    input  wire                   req_payload,
    input  wire [3:0]             req_match,
    // a TCP FIN or RST; a TCP SYN; the payload may be another protocol's message; an HTTP
    // CONNECT request; a UDP RTP candidate, its {SSRC, sequence}
    input  wire                   req_end,
    input  wire                   req_syn,
    input  wire                   req_other,
    input  wire                   req_connect,
    input  wire                   req_rtp,
    input  wire [47:0]            req_rtp_id,
    input  wire                   req_ipv6,
    input  wire [1:0]             req_tags,
    input  wire [7:0]             req_byte0,
    input  wire [7:0]             req_byte1,
    input  wire [15:0]            req_checksum,
    // where a parsed frame's payload is (what the name extractor reads)
    input  wire [7:0]             req_payload_start,
    input  wire [15:0]            req_payload_length,

    // policy of class c in bits [8c+7:8c]: bit 7 enable, bits 5:0 DSCP
    input  wire [127:0]           policy,
    // the policy of an application (APP_POLICY): read asynchronously at app_policy_addr
    // (bit 7 enable, bit 6 decides: replaces the class's, bits 5:0 DSCP)
    output wire [5:0]             app_policy_addr,
    input  wire [7:0]             app_policy_data,

    // how the frame leaves: {rewrite, ipv6, tags[1:0], value_a, value_b, value_c, class[3:0]},
    // 7 cycles after the request
    output reg                    decision_valid = 1'b0,
    output reg  [31:0]            decision = 32'd0,

    // what a request did to the table, 5 cycles after the request
    output reg                    event_unparsed = 1'b0,
    output reg                    event_seen = 1'b0,
    output reg                    event_classified = 1'b0,
    output reg  [3:0]             event_class = 4'd0,  // the class of event_classified's flow
    // a classified flow refined (HTTP CONNECT or SMTP to TLS, STUN to DTLS) from
    // event_refined_from to event_class
    output reg                    event_refined = 1'b0,
    output reg  [3:0]             event_refined_from = 4'd0,
    output reg                    event_inserted = 1'b0,
    output reg                    event_occupied = 1'b0,
    output reg                    event_evicted = 1'b0,
    output reg                    event_failed = 1'b0,
    // an unknown flow guessed by its ports (it ended, or it was evicted), with the other events
    // other events
    output reg                    event_guessed = 1'b0,
    output reg  [3:0]             event_guess_class = 4'd0,

    output wire                   clearing,
    output wire [15:0]            timestamp,

    // read host names (the module's NAMES_ON): when off, every command reads nothing
    input  wire                   names_on,
    // names (vtc_names): one command per request, in order, 5 cycles after it (read nothing,
    // the HTTP Host, the TLS server name, the DNS question; the payload's start and end; TCP;
    // the tag: an entry of the list of names being read)
    output reg                    name_cmd_valid = 1'b0,
    output reg  [1:0]             name_cmd_kind = 2'd0,
    output reg  [15:0]            name_cmd_start = 16'd0,
    output reg  [15:0]            name_cmd_end = 16'd0,
    output reg                    name_cmd_tcp = 1'b0,
    output reg  [NAME_TAG_WIDTH-1:0] name_cmd_tag = {NAME_TAG_WIDTH{1'b0}},
    // their results (the application the table gives the name) and skips, by tag
    input  wire                   name_res_valid,
    input  wire [NAME_TAG_WIDTH-1:0] name_res_tag,
    input  wire                   name_res_named,
    input  wire [5:0]             name_res_app,
    input  wire                   name_skip_valid,
    input  wire [NAME_TAG_WIDTH-1:0] name_skip_tag,
    // a flow named by a result, with its application (0: a name of no application)
    output reg                    event_named = 1'b0,
    output reg  [5:0]             event_named_app = 6'd0,
    // the application the request's flow had before it, with the decision
    output reg  [5:0]             decision_app = 6'd0
);

localparam WAYS = 4;
localparam KEY_WIDTH = 105;
// the key as stored: the protocol as one bit (a parsed flow is TCP or UDP)
localparam STORED_KEY_WIDTH = KEY_WIDTH - 7;
localparam TICK_WIDTH = $clog2(FLOW_TICK_CYCLES);
localparam TICK_LAST_CYCLE = FLOW_TICK_CYCLES - 1;
localparam [TICK_WIDTH-1:0] TICK_LAST = TICK_LAST_CYCLE[TICK_WIDTH-1:0];
localparam [15:0] TIMEOUT = FLOW_TIMEOUT[15:0];
localparam [3:0] INSPECT_LIMIT = INSPECT_PACKETS[3:0];

// class numbers and port guesses, from the module catalogue
`include "vtc_classes.vh"
localparam [3:0] HTTP = CLASS_HTTP[3:0];
localparam [3:0] TLS = CLASS_TLS[3:0];
localparam [3:0] RTP = CLASS_RTP[3:0];
localparam [3:0] SMTP = CLASS_SMTP[3:0];
localparam [3:0] SSH = CLASS_SSH[3:0];
localparam [3:0] DNS = CLASS_DNS[3:0];
localparam [3:0] STUN = CLASS_STUN[3:0];
localparam [3:0] DTLS = CLASS_DTLS[3:0];
// a name command's kinds (vtc_name_extract)
localparam [1:0] NAME_NONE = 2'd0, NAME_HTTP = 2'd1, NAME_TLS = 2'd2, NAME_DNS = 2'd3;
localparam NAME_LIST = 2 ** NAME_TAG_WIDTH;
// a list entry stays this many cycles after its result, so that a request that read its
// bucket before the result's write does not read the flow's name again (the write lands
// three or four cycles after the entry is answered, a request looks at the list three
// cycles after it reads its bucket: 8 leaves a cycle or two to spare)
localparam [3:0] NAME_HOLD = 4'd8;
// a later RTP candidate of the stored SSRC confirms when its sequence number is 1..16 ahead
localparam [15:0] RTP_SEQUENCE_WINDOW = 16'd16;

// entry fields, from bit 0 up, each at the previous one's end (a new field goes
// before VALID); ENTRY_WIDTH follows
localparam LAST_SEEN_LSB = 0;
localparam LAST_SEEN_WIDTH = 16;
localparam INSPECTED_LSB = LAST_SEEN_LSB + LAST_SEEN_WIDTH;
localparam INSPECTED_WIDTH = 4;
localparam CLASS_LSB = INSPECTED_LSB + INSPECTED_WIDTH;
localparam CLASS_WIDTH = 4;
// CLASS 0: an RTP candidate was seen (RTP_PENDING, its SSRC and sequence in RTP); any
// other class: the flow may still be refined to TLS or DTLS (REFINE)
localparam PENDING = CLASS_LSB + CLASS_WIDTH;
// the class the flow's ports guess (from vtc_port_guess when it is stored), 0 once it was
// guessed (a flow is guessed once) or when no port of the list is the flow's
localparam GUESS_LSB = PENDING + 1;
localparam GUESS_WIDTH = 4;
localparam RTP_LSB = GUESS_LSB + GUESS_WIDTH;
localparam RTP_WIDTH = 48;
// the flow was stored by a TCP SYN, so its first payload is its first message (OPENED);
// that message was another protocol's, so a later HTTP, TLS, SSH or SMTP match is an
// upgrade or a tunnel and does not classify (SPOKE); a UDP flow (never OPENED) keeps RTP_OFF
// in SPOKE: an RTP candidate repeated the stored sequence number of its SSRC, so the flow is
// never RTP (the two never matter at once: RTP candidates are UDP, those matches TCP)
localparam OPENED = RTP_LSB + RTP_WIDTH;
localparam SPOKE = OPENED + 1;
// the flow's payload packets read for a name (vtc_names) while it was not named
localparam NAME_TRIES_LSB = SPOKE + 1;
localparam NAME_TRIES_WIDTH = 4;
localparam KEY_LSB = NAME_TRIES_LSB + NAME_TRIES_WIDTH;
localparam VALID = KEY_LSB + STORED_KEY_WIDTH;
localparam ENTRY_WIDTH = VALID + 1;

// the key compare: chunks of KEY_CHUNK bits (two 4-input LUT levels each) registered
// in one stage, combined in the next
localparam KEY_CHUNK = 8;
localparam KEY_CHUNKS = (STORED_KEY_WIDTH + KEY_CHUNK - 1) / KEY_CHUNK;

// {IPv6, UDP (else TCP), addresses and ports}
function [STORED_KEY_WIDTH-1:0] stored_key(input [KEY_WIDTH-1:0] key);
    stored_key = {key[104], key[103:96] == 8'd17, key[95:0]};
endfunction

function [ENTRY_WIDTH-1:0] entry(input [STORED_KEY_WIDTH-1:0] key,
                                 input [CLASS_WIDTH-1:0] klass,
                                 input [INSPECTED_WIDTH-1:0] inspected,
                                 input [LAST_SEEN_WIDTH-1:0] last_seen,
                                 input pending, input [GUESS_WIDTH-1:0] guess,
                                 input [RTP_WIDTH-1:0] rtp, input opened, input spoke,
                                 input [NAME_TRIES_WIDTH-1:0] name_tries);
    begin
        entry = {ENTRY_WIDTH{1'b0}};
        entry[VALID] = 1'b1;
        entry[KEY_LSB +: STORED_KEY_WIDTH] = key;
        entry[NAME_TRIES_LSB +: NAME_TRIES_WIDTH] = name_tries;
        entry[SPOKE] = spoke;
        entry[OPENED] = opened;
        entry[RTP_LSB +: RTP_WIDTH] = rtp;
        entry[GUESS_LSB +: GUESS_WIDTH] = guess;
        entry[PENDING] = pending;
        entry[CLASS_LSB +: CLASS_WIDTH] = klass;
        entry[INSPECTED_LSB +: INSPECTED_WIDTH] = inspected;
        entry[LAST_SEEN_LSB +: LAST_SEEN_WIDTH] = last_seen;
    end
endfunction

// the lowest way of a set, one-hot (0 when the set is empty)
function [WAYS-1:0] lowest(input [WAYS-1:0] set);
    lowest = set & ~(set - 1'b1);
endfunction

// ---- time ---------------------------------------------------------------

reg [TICK_WIDTH-1:0] tick_reg = {TICK_WIDTH{1'b0}};
reg [15:0]           timestamp_reg = 16'd0;

assign timestamp = timestamp_reg;

always @(posedge clk) begin
    if (tick_reg == TICK_LAST) begin
        tick_reg <= {TICK_WIDTH{1'b0}};
        timestamp_reg <= timestamp_reg + 16'd1;
    end else begin
        tick_reg <= tick_reg + 1'b1;
    end
    if (rst) begin
        tick_reg <= {TICK_WIDTH{1'b0}};
        timestamp_reg <= 16'd0;
    end
end

// ---- clearing after reset -------------------------------------------------

reg                   clearing_reg = 1'b1;
reg [BUCKET_BITS-1:0] clear_index_reg = {BUCKET_BITS{1'b0}};

assign clearing = clearing_reg;

always @(posedge clk) begin
    if (clearing_reg) begin
        clear_index_reg <= clear_index_reg + 1'b1;
        if (&clear_index_reg) begin
            clearing_reg <= 1'b0;
        end
    end
    if (rst) begin
        clearing_reg <= 1'b1;
        clear_index_reg <= {BUCKET_BITS{1'b0}};
    end
end

// ---- the request as it moves down the pipeline ----------------------------

// its fields, stage by stage (rd_ read, en_ entry, cmp_ compare, hit_ hit, dec_ decide)
reg                   rd_valid = 1'b0, en_valid = 1'b0, cmp_valid = 1'b0, hit_valid = 1'b0;
reg                   rd_parsed = 1'b0, en_parsed = 1'b0, cmp_parsed = 1'b0, hit_parsed = 1'b0;
reg [STORED_KEY_WIDTH-1:0] rd_key = {STORED_KEY_WIDTH{1'b0}}, en_key = {STORED_KEY_WIDTH{1'b0}};
reg [STORED_KEY_WIDTH-1:0] cmp_key = {STORED_KEY_WIDTH{1'b0}}, hit_key = {STORED_KEY_WIDTH{1'b0}};
reg [BUCKET_BITS-1:0] rd_bucket = {BUCKET_BITS{1'b0}}, en_bucket = {BUCKET_BITS{1'b0}};
reg [BUCKET_BITS-1:0] cmp_bucket = {BUCKET_BITS{1'b0}}, hit_bucket = {BUCKET_BITS{1'b0}};
reg                   rd_payload = 1'b0, en_payload = 1'b0, cmp_payload = 1'b0, hit_payload = 1'b0;
reg [3:0]             rd_match = 4'd0, en_match = 4'd0, cmp_match = 4'd0, hit_match = 4'd0;
// the hit stage's compares of it: a class at all, a refinement's (TLS, DTLS), SMTP, HTTP with
// CONNECT, STUN over UDP
reg                   hit_matched = 1'b0, hit_match_refines = 1'b0, hit_match_smtp = 1'b0;
reg                   hit_match_http_connect = 1'b0, hit_match_stun_udp = 1'b0;
reg                   rd_syn = 1'b0, en_syn = 1'b0, cmp_syn = 1'b0, hit_syn = 1'b0;
reg                   rd_other = 1'b0, en_other = 1'b0, cmp_other = 1'b0, hit_other = 1'b0;
reg                   rd_end = 1'b0, en_end = 1'b0, cmp_end = 1'b0;
reg                   rd_connect = 1'b0, en_connect = 1'b0, cmp_connect = 1'b0;
reg                   rd_rtp = 1'b0, en_rtp = 1'b0, cmp_rtp = 1'b0, hit_rtp = 1'b0;
reg [47:0]            rd_rtp_id = 48'd0, en_rtp_id = 48'd0, cmp_rtp_id = 48'd0, hit_rtp_id = 48'd0;
// the stored sequence numbers that a candidate's confirms: sequence - 16 .. sequence - 1
// (modulo 2**16; the range wraps past 0 when the sequence number is 1..15), as registered
// bounds, so the compare stage compares without a subtraction first
reg [15:0]            en_sequence_low = 16'd0, en_sequence_high = 16'd0;
reg                   en_sequence_wraps = 1'b0;
// the class the request's own ports guess (vtc_port_guess on rd_key, with cmp_)
wire [3:0]            cmp_guess;
reg [3:0]             hit_guess = 4'd0;
// how the frame leaves needs these after the decision
reg                   rd_ipv6 = 1'b0, en_ipv6 = 1'b0, cmp_ipv6 = 1'b0, hit_ipv6 = 1'b0, dec_ipv6 = 1'b0;
reg [1:0]             rd_tags = 2'd0, en_tags = 2'd0, cmp_tags = 2'd0, hit_tags = 2'd0, dec_tags = 2'd0;
// the bits of the L3 header's first two bytes that the rewrite keeps (IPv6: the version
// and the traffic class's low bits; IPv4: the ECN bits)
reg [7:4]             rd_byte0 = 4'd0, en_byte0 = 4'd0, cmp_byte0 = 4'd0, hit_byte0 = 4'd0, dec_byte0 = 4'd0;
reg [5:0]             rd_byte1 = 6'd0, en_byte1 = 6'd0, cmp_byte1 = 6'd0, hit_byte1 = 6'd0, dec_byte1 = 6'd0;
// the IPv4 checksum's one's complement sum without the new DSCP (RFC 1624 eq. 3:
// ~HC + ~m + m' where m' = {byte0, DSCP, ECN}): its three terms added (read), folded (entry)
reg [17:0]            rd_checksum_sum = 18'd0;
reg [15:0]            en_checksum_base = 16'd0, cmp_checksum_base = 16'd0;
reg [15:0]            hit_checksum_base = 16'd0, dec_checksum_base = 16'd0;
// the timestamp and the clearing flag the request is decided by
reg [15:0]            en_timestamp = 16'd0, cmp_timestamp = 16'd0, hit_timestamp = 16'd0;
// a way is expired if its last-seen time, at most the timestamp, is below the timestamp less
// FLOW_TIMEOUT, or, above it (the timestamp wrapped since), below that plus 2**16 (bit 16:
// negative / all of them): compares with registers, no subtraction before them
reg [16:0]            en_expiry = 17'd0, en_expiry_wrapped = 17'd0;
// the payload's start and end (what a name command reads)
reg [7:0]             rd_name_start = 8'd0, en_name_start = 8'd0, cmp_name_start = 8'd0;
reg [7:0]             hit_name_start = 8'd0;
reg [15:0]            rd_name_end = 16'd0, en_name_end = 16'd0, cmp_name_end = 16'd0;
reg [15:0]            hit_name_end = 16'd0;
reg                   en_clearing = 1'b0, cmp_clearing = 1'b0, hit_clearing = 1'b0;

wire [17:0] checksum_sum = {2'b00, ~req_checksum} + {2'b00, ~{req_byte0, req_byte1}}
    + {2'b00, req_byte0, 6'd0, req_byte1[1:0]};
wire [16:0] checksum_fold = {1'b0, rd_checksum_sum[15:0]} + {15'd0, rd_checksum_sum[17:16]};
wire [15:0] checksum_base = checksum_fold[15:0] + {15'd0, checksum_fold[16]};

always @(posedge clk) begin
    rd_valid <= req_valid;
    rd_parsed <= req_parsed;
    rd_key <= stored_key(req_key);
    rd_bucket <= req_bucket;
    rd_payload <= req_payload;
    rd_match <= req_match;
    rd_end <= req_end;
    rd_syn <= req_syn;
    rd_other <= req_other;
    rd_connect <= req_connect;
    rd_rtp <= req_rtp;
    rd_rtp_id <= req_rtp_id;
    rd_ipv6 <= req_ipv6;
    rd_tags <= req_tags;
    rd_byte0 <= req_byte0[7:4];
    rd_byte1 <= req_byte1[5:0];
    rd_checksum_sum <= checksum_sum;
    rd_name_start <= req_payload_start;
    rd_name_end <= {8'd0, req_payload_start} + req_payload_length;

    en_valid <= rd_valid;
    en_parsed <= rd_parsed;
    en_key <= rd_key;
    en_bucket <= rd_bucket;
    en_payload <= rd_payload;
    en_match <= rd_match;
    en_end <= rd_end;
    en_syn <= rd_syn;
    en_other <= rd_other;
    en_connect <= rd_connect;
    en_rtp <= rd_rtp;
    en_rtp_id <= rd_rtp_id;
    en_sequence_low <= rd_rtp_id[15:0] - RTP_SEQUENCE_WINDOW;
    en_sequence_high <= rd_rtp_id[15:0] - 16'd1;
    en_sequence_wraps <= rd_rtp_id[15:0] != 16'd0 && rd_rtp_id[15:0] < RTP_SEQUENCE_WINDOW;
    en_ipv6 <= rd_ipv6;
    en_tags <= rd_tags;
    en_byte0 <= rd_byte0;
    en_byte1 <= rd_byte1;
    en_checksum_base <= checksum_base;
    en_timestamp <= timestamp_reg;
    en_expiry <= {1'b0, timestamp_reg} - {1'b0, TIMEOUT};
    en_expiry_wrapped <= {1'b0, timestamp_reg} + 17'h10000 - {1'b0, TIMEOUT};
    en_clearing <= clearing_reg;
    en_name_start <= rd_name_start;
    en_name_end <= rd_name_end;

    cmp_valid <= en_valid;
    cmp_parsed <= en_parsed;
    cmp_key <= en_key;
    cmp_bucket <= en_bucket;
    cmp_payload <= en_payload;
    cmp_match <= en_match;
    cmp_end <= en_end;
    cmp_syn <= en_syn;
    cmp_other <= en_other;
    cmp_connect <= en_connect;
    cmp_rtp <= en_rtp;
    cmp_rtp_id <= en_rtp_id;
    cmp_ipv6 <= en_ipv6;
    cmp_tags <= en_tags;
    cmp_byte0 <= en_byte0;
    cmp_byte1 <= en_byte1;
    cmp_checksum_base <= en_checksum_base;
    cmp_timestamp <= en_timestamp;
    cmp_clearing <= en_clearing;
    cmp_name_start <= en_name_start;
    cmp_name_end <= en_name_end;

    hit_valid <= cmp_valid;
    hit_parsed <= cmp_parsed;
    hit_key <= cmp_key;
    hit_bucket <= cmp_bucket;
    hit_payload <= cmp_payload;
    hit_match <= cmp_match;
    hit_matched <= cmp_match != 4'd0;
    hit_match_refines <= cmp_match == TLS || cmp_match == DTLS;
    hit_match_stun_udp <= cmp_match == STUN && cmp_key[96];
    hit_match_smtp <= cmp_match == SMTP;
    hit_match_http_connect <= cmp_match == HTTP && cmp_connect;
    hit_syn <= cmp_syn;
    hit_other <= cmp_other;
    hit_rtp <= cmp_rtp;
    hit_rtp_id <= cmp_rtp_id;
    hit_guess <= cmp_guess;
    hit_ipv6 <= cmp_ipv6;
    hit_tags <= cmp_tags;
    hit_byte0 <= cmp_byte0;
    hit_byte1 <= cmp_byte1;
    hit_checksum_base <= cmp_checksum_base;
    hit_timestamp <= cmp_timestamp;
    hit_clearing <= cmp_clearing;
    hit_name_start <= cmp_name_start;
    hit_name_end <= cmp_name_end;

    dec_ipv6 <= hit_ipv6;
    dec_tags <= hit_tags;
    dec_byte0 <= hit_byte0;
    dec_byte1 <= hit_byte1;
    dec_checksum_base <= hit_checksum_base;

    if (rst) begin
        rd_valid <= 1'b0;
        en_valid <= 1'b0;
        cmp_valid <= 1'b0;
        hit_valid <= 1'b0;
    end
end

// the request's own ports guessed (for a flow that ends unknown), from the registered
// stored key (its protocol bit: UDP, else TCP), two cycles on: with cmp_
vtc_port_guess own_ports_guess (
    .clk(clk),
    .tcp(!rd_key[96]),
    .udp(rd_key[96]),
    .port_a(rd_key[63:48]),
    .port_b(rd_key[15:0]),
    .guess(cmp_guess)
);

// ---- read: the bucket's ways ------------------------------------------------

wire [WAYS*ENTRY_WIDTH-1:0] way_data;
reg  [WAYS-1:0]             write_way_reg = {WAYS{1'b0}};
reg  [BUCKET_BITS-1:0]      write_bucket_reg = {BUCKET_BITS{1'b0}};
reg  [ENTRY_WIDTH-1:0]      write_entry_reg = {ENTRY_WIDTH{1'b0}};

genvar w;
generate
    for (w = 0; w < WAYS; w = w + 1) begin : way
        vtc_flow_ram #(
            .WIDTH(ENTRY_WIDTH),
            .ADDR_WIDTH(BUCKET_BITS)
        )
        ram (
            .clk(clk),
            .wr_en(clearing_reg || write_way_reg[w]),
            .wr_addr(clearing_reg ? clear_index_reg : write_bucket_reg),
            // clearing writes VALID = 0 only: a free entry's other fields are never read
            .wr_data({write_entry_reg[VALID] && !clearing_reg, write_entry_reg[VALID-1:0]}),
            .rd_addr(req_bucket),
            .rd_data(way_data[ENTRY_WIDTH*w +: ENTRY_WIDTH])
        );
    end
endgenerate

// each way's {NAMED, application}: a RAM of their own beside the flow entries (written by
// the pipeline when it inserts a flow, not named, and by name results), read with them
localparam NAMES_WIDTH = 7;
wire [WAYS-1:0]             names_wr_way;
wire [BUCKET_BITS-1:0]      names_wr_bucket;
wire [NAMES_WIDTH-1:0]      names_wr_data;
wire [WAYS*NAMES_WIDTH-1:0] names_data;

// the write (an insertion's or a result's) is registered and lands a cycle later (the next
// request reads its bucket four or more cycles after that); the clearing's is not
reg  [WAYS-1:0]             names_wr_way_reg = {WAYS{1'b0}};
reg  [BUCKET_BITS-1:0]      names_wr_bucket_reg = {BUCKET_BITS{1'b0}};
reg  [NAMES_WIDTH-1:0]      names_wr_data_reg = {NAMES_WIDTH{1'b0}};

always @(posedge clk) begin
    names_wr_way_reg <= names_wr_way;
    names_wr_bucket_reg <= names_wr_bucket;
    names_wr_data_reg <= names_wr_data;
    if (rst) begin
        names_wr_way_reg <= {WAYS{1'b0}};
    end
end

generate
    for (w = 0; w < WAYS; w = w + 1) begin : names
        vtc_flow_ram #(
            .WIDTH(NAMES_WIDTH),
            .ADDR_WIDTH(BUCKET_BITS)
        )
        ram (
            .clk(clk),
            .wr_en(clearing_reg || names_wr_way_reg[w]),
            .wr_addr(clearing_reg ? clear_index_reg : names_wr_bucket_reg),
            .wr_data(clearing_reg ? {NAMES_WIDTH{1'b0}} : names_wr_data_reg),
            .rd_addr(req_bucket),
            .rd_data(names_data[NAMES_WIDTH*w +: NAMES_WIDTH])
        );
    end
endgenerate

// the list of names being read: per entry, in use, the flow's bucket and way, stale (another
// flow was inserted there since: its result is dropped), answered (then held NAME_HOLD
// cycles before it is free again)
reg [NAME_LIST-1:0]   list_valid = {NAME_LIST{1'b0}};
reg [NAME_LIST-1:0]   list_stale = {NAME_LIST{1'b0}};
reg [NAME_LIST-1:0]   list_done = {NAME_LIST{1'b0}};
reg [BUCKET_BITS*NAME_LIST-1:0] list_bucket = {BUCKET_BITS*NAME_LIST{1'b0}};  // entry n in bits [BUCKET_BITS*n +: BUCKET_BITS]
reg [2*NAME_LIST-1:0] list_way = {2*NAME_LIST{1'b0}};    // entry n in bits [2n+1:2n]
reg [4*NAME_LIST-1:0] list_hold = {4*NAME_LIST{1'b0}};   // entry n in bits [4n+3:4n]
// the lowest free entry, registered (requests are 6 or more cycles apart: one taken a cycle)
reg                   list_free_found = 1'b1;
reg [NAME_TAG_WIDTH-1:0] list_free = {NAME_TAG_WIDTH{1'b0}};

// per way, at the compare stage: a name of the flow at the request's bucket and that way is
// being read (registered into hit_name_busy); the list entries' buckets are compared with the
// request's a stage before (an entry is taken two cycles after a decision and requests are
// six or more cycles apart: no entry changes between the two)
// (the list's combinational reads are functions in continuous assignments: an always @*
// block whose inputs keep their initial values would never run in an event simulator)
reg [NAME_LIST-1:0]   cmp_list_here = {NAME_LIST{1'b0}};

function [WAYS-1:0] ways_busy(input [NAME_LIST-1:0] valid, input [NAME_LIST-1:0] stale,
                              input [NAME_LIST-1:0] here, input [2*NAME_LIST-1:0] ways);
    integer e;
    begin
        ways_busy = {WAYS{1'b0}};
        for (e = 0; e < NAME_LIST; e = e + 1) begin
            if (valid[e] && !stale[e] && here[e]) begin
                ways_busy = ways_busy | (4'b0001 << ways[2*e +: 2]);
            end
        end
    end
endfunction

wire [WAYS-1:0]       cmp_name_busy = ways_busy(list_valid, list_stale, cmp_list_here, list_way);

always @(posedge clk) begin
    for (n = 0; n < NAME_LIST; n = n + 1) begin
        cmp_list_here[n] <= list_bucket[BUCKET_BITS*n +: BUCKET_BITS] == en_bucket;
    end
end

// ---- entry: the RAM outputs, from their output registers -------------------------

wire [WAYS*ENTRY_WIDTH-1:0] en_entries = way_data;

// ---- compare: key chunks, free, expired, inspection per way -----------------

reg [KEY_CHUNK*KEY_CHUNKS-1:0] key_difference;  // zero-padded to whole chunks
reg [WAYS*KEY_CHUNKS-1:0]      chunk_equal;
reg [WAYS-1:0]                 entry_valid;
// a way's expiry, in three parts (last seen at most the timestamp; expired if so; expired
// if not) that the hit stage puts together: the compares start at the block RAM's output
// register and take the whole cycle
reg [WAYS-1:0]                 entry_not_after;
reg [WAYS-1:0]                 entry_expired_not_after;
reg [WAYS-1:0]                 entry_expired_after;
reg [WAYS-1:0]                 entry_inspects;    // this packet is inspected if the way hits
reg [WAYS*CLASS_WIDTH-1:0]     entry_class;
reg [WAYS*INSPECTED_WIDTH-1:0] entry_inspected;   // after this packet, if the way hits
reg [WAYS*4-1:0]               ssrc_equal;        // the stored SSRC's bytes equal the request's
// the request's sequence number 1..16 ahead of the stored one, in two parts (the stored one
// at least the request's less 16; at most the request's less 1) that the hit stage puts
// together (both, or either when the window wraps past 0): each compare starts at the
// block RAM's output register and takes the whole cycle, as the expiry's do
reg [WAYS-1:0]                 sequence_not_below;
reg [WAYS-1:0]                 sequence_not_above;
reg [WAYS-1:0]                 sequence_equal;    // the request's sequence number is the stored one (a repeat)
reg [WAYS-1:0]                 entry_pending;
reg [WAYS-1:0]                 entry_opened;
reg [WAYS-1:0]                 entry_spoke;
reg [WAYS-1:0]                 entry_first;       // OPENED and never inspected
reg [WAYS*GUESS_WIDTH-1:0]     entry_guess;       // the stored guess, 0 once guessed
reg [WAYS*GUESS_WIDTH-1:0]     entry_victim_guess;  // the same if unknown: guessed if evicted
reg [WAYS*NAME_TRIES_WIDTH-1:0] entry_name_tries;
reg [15:0]                     stored_sequence;
reg [15:0]                     last_seen;
reg [ENTRY_WIDTH-1:0]          stored;
integer n;
integer k;

always @* begin
    for (n = 0; n < WAYS; n = n + 1) begin
        stored = en_entries[ENTRY_WIDTH*n +: ENTRY_WIDTH];
        key_difference = {KEY_CHUNK*KEY_CHUNKS{1'b0}};
        key_difference[STORED_KEY_WIDTH-1:0] = stored[KEY_LSB +: STORED_KEY_WIDTH] ^ en_key;
        for (k = 0; k < KEY_CHUNKS; k = k + 1) begin
            chunk_equal[KEY_CHUNKS*n + k] = ~|key_difference[KEY_CHUNK*k +: KEY_CHUNK];
        end
        last_seen = stored[LAST_SEEN_LSB +: LAST_SEEN_WIDTH];
        entry_valid[n] = stored[VALID];
        // (the timestamp - last seen) mod 2**16 > FLOW_TIMEOUT
        entry_not_after[n] = last_seen <= en_timestamp;
        entry_expired_not_after[n] = stored[VALID] && !en_expiry[16]
            && last_seen < en_expiry[15:0];
        entry_expired_after[n] = stored[VALID]
            && (en_expiry_wrapped[16] || last_seen < en_expiry_wrapped[15:0]);
        entry_class[CLASS_WIDTH*n +: CLASS_WIDTH] = stored[CLASS_LSB +: CLASS_WIDTH];
        // unknown, or classified and still refinable (REFINE)
        entry_inspects[n] = (stored[CLASS_LSB +: CLASS_WIDTH] == 4'd0 || stored[PENDING])
            && en_payload && stored[INSPECTED_LSB +: INSPECTED_WIDTH] < INSPECT_LIMIT;
        entry_inspected[INSPECTED_WIDTH*n +: INSPECTED_WIDTH] =
            stored[INSPECTED_LSB +: INSPECTED_WIDTH] + {3'd0, entry_inspects[n]};
        for (k = 0; k < 4; k = k + 1) begin
            ssrc_equal[4*n + k] = stored[RTP_LSB + 16 + 8*k +: 8] == en_rtp_id[16 + 8*k +: 8];
        end
        stored_sequence = stored[RTP_LSB +: 16];
        sequence_not_below[n] = stored_sequence >= en_sequence_low;
        sequence_not_above[n] = stored_sequence <= en_sequence_high;
        sequence_equal[n] = stored_sequence == en_rtp_id[15:0];
        entry_pending[n] = stored[PENDING];
        entry_opened[n] = stored[OPENED];
        entry_spoke[n] = stored[SPOKE];
        entry_first[n] = stored[OPENED] && stored[INSPECTED_LSB +: INSPECTED_WIDTH] == 4'd0;
        entry_guess[GUESS_WIDTH*n +: GUESS_WIDTH] = stored[GUESS_LSB +: GUESS_WIDTH];
        entry_victim_guess[GUESS_WIDTH*n +: GUESS_WIDTH] =
            stored[CLASS_LSB +: CLASS_WIDTH] == 4'd0 ? stored[GUESS_LSB +: GUESS_WIDTH] : 4'd0;
        entry_name_tries[NAME_TRIES_WIDTH*n +: NAME_TRIES_WIDTH] =
            stored[NAME_TRIES_LSB +: NAME_TRIES_WIDTH];
    end
end

reg [WAYS*KEY_CHUNKS-1:0]      cmp_chunk_equal = {WAYS*KEY_CHUNKS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_valid = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_not_after = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_expired_not_after = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_expired_after = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_inspects = {WAYS{1'b0}};
reg [WAYS*CLASS_WIDTH-1:0]     cmp_entry_class = {WAYS*CLASS_WIDTH{1'b0}};
reg [WAYS*INSPECTED_WIDTH-1:0] cmp_entry_inspected = {WAYS*INSPECTED_WIDTH{1'b0}};
reg [WAYS*4-1:0]               cmp_ssrc_equal = {WAYS*4{1'b0}};
reg [WAYS-1:0]                 cmp_sequence_not_below = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_sequence_not_above = {WAYS{1'b0}};
reg                            cmp_sequence_wraps = 1'b0;
reg [WAYS-1:0]                 cmp_sequence_equal = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_pending = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_opened = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_spoke = {WAYS{1'b0}};
reg [WAYS-1:0]                 cmp_entry_first = {WAYS{1'b0}};
reg [WAYS*GUESS_WIDTH-1:0]     cmp_entry_guess = {WAYS*GUESS_WIDTH{1'b0}};
reg [WAYS*GUESS_WIDTH-1:0]     cmp_entry_victim_guess = {WAYS*GUESS_WIDTH{1'b0}};
reg [WAYS*RTP_WIDTH-1:0]       cmp_entry_rtp = {WAYS*RTP_WIDTH{1'b0}};
reg [WAYS*NAME_TRIES_WIDTH-1:0] cmp_entry_name_tries = {WAYS*NAME_TRIES_WIDTH{1'b0}};
reg [WAYS*NAMES_WIDTH-1:0]     cmp_names = {WAYS*NAMES_WIDTH{1'b0}};

always @(posedge clk) begin
    cmp_ssrc_equal <= ssrc_equal;
    cmp_sequence_not_below <= sequence_not_below;
    cmp_sequence_not_above <= sequence_not_above;
    cmp_sequence_wraps <= en_sequence_wraps;
    cmp_sequence_equal <= sequence_equal;
    cmp_entry_pending <= entry_pending;
    cmp_entry_opened <= entry_opened;
    cmp_entry_spoke <= entry_spoke;
    cmp_entry_first <= entry_first;
    cmp_entry_guess <= entry_guess;
    cmp_entry_victim_guess <= entry_victim_guess;
    cmp_entry_name_tries <= entry_name_tries;
    cmp_names <= names_data;
    for (n = 0; n < WAYS; n = n + 1) begin
        cmp_entry_rtp[RTP_WIDTH*n +: RTP_WIDTH] <= en_entries[ENTRY_WIDTH*n + RTP_LSB +: RTP_WIDTH];
    end
end

always @(posedge clk) begin
    cmp_chunk_equal <= chunk_equal;
    cmp_entry_valid <= entry_valid;
    cmp_entry_not_after <= entry_not_after;
    cmp_entry_expired_not_after <= entry_expired_not_after;
    cmp_entry_expired_after <= entry_expired_after;
    cmp_entry_inspects <= entry_inspects;
    cmp_entry_class <= entry_class;
    cmp_entry_inspected <= entry_inspected;
end

// ---- hit: the lowest hit, free and expired way ------------------------------

reg [WAYS-1:0] hit;
reg [WAYS-1:0] hit_lowest;
reg [WAYS-1:0] expired;
reg [WAYS-1:0] victim;                 // the lowest expired way
reg [GUESS_WIDTH-1:0] victim_guess;  // what the lowest expired way's flow guesses

always @* begin
    for (n = 0; n < WAYS; n = n + 1) begin
        hit[n] = cmp_entry_valid[n] && &cmp_chunk_equal[KEY_CHUNKS*n +: KEY_CHUNKS];
    end
    hit_lowest = lowest(hit);
    for (n = 0; n < WAYS; n = n + 1) begin
        expired[n] = cmp_entry_not_after[n] ? cmp_entry_expired_not_after[n]
            : cmp_entry_expired_after[n];
    end
    victim = lowest(expired);
    victim_guess = {GUESS_WIDTH{1'b0}};
    for (n = 0; n < WAYS; n = n + 1) begin
        victim_guess = victim_guess
            | ({GUESS_WIDTH{victim[n]}} & cmp_entry_victim_guess[GUESS_WIDTH*n +: GUESS_WIDTH]);
    end
end

// per way, what the hit stage registers and what its guess terms take from: SPOKE and the
// request's match is HTTP, TLS, SSH or SMTP (held back); an RTP candidate's stored one
// (RTP_PENDING, not RTP_OFF) is of its SSRC and 1..16 behind
wire [WAYS-1:0] entry_holds = cmp_entry_spoke & {WAYS{cmp_match == HTTP || cmp_match == TLS
    || cmp_match == SSH || cmp_match == SMTP}};
wire [WAYS-1:0] rtp_confirms;
wire [WAYS-1:0] cmp_sequence_ahead = cmp_sequence_wraps
    ? cmp_sequence_not_below | cmp_sequence_not_above
    : cmp_sequence_not_below & cmp_sequence_not_above;

generate
    for (w = 0; w < WAYS; w = w + 1) begin : confirms
        assign rtp_confirms[w] = cmp_entry_class[CLASS_WIDTH*w +: CLASS_WIDTH] == 4'd0
            && cmp_entry_pending[w] && &cmp_ssrc_equal[4*w +: 4] && cmp_sequence_ahead[w]
            && !cmp_entry_spoke[w];
    end
endgenerate

reg [WAYS-1:0]                 hit_way = {WAYS{1'b0}};      // one-hot, or 0: a miss
reg [WAYS-1:0]                 hit_free_way = {WAYS{1'b0}};
reg [WAYS-1:0]                 hit_expired_way = {WAYS{1'b0}};
reg [WAYS-1:0]                 hit_entry_inspects = {WAYS{1'b0}};
reg [WAYS*CLASS_WIDTH-1:0]     hit_entry_class = {WAYS*CLASS_WIDTH{1'b0}};
reg [WAYS*INSPECTED_WIDTH-1:0] hit_entry_inspected = {WAYS*INSPECTED_WIDTH{1'b0}};
reg [WAYS-1:0]                 hit_entry_pending = {WAYS{1'b0}};
reg [WAYS-1:0]                 hit_entry_opened = {WAYS{1'b0}};
reg [WAYS-1:0]                 hit_entry_spoke = {WAYS{1'b0}};
// SPOKE and the request's match is HTTP, TLS, SSH or SMTP: the match is not taken
reg [WAYS-1:0]                 hit_entry_holds = {WAYS{1'b0}};
reg [WAYS-1:0]                 hit_entry_first = {WAYS{1'b0}};
reg [WAYS*GUESS_WIDTH-1:0]     hit_entry_guess = {WAYS*GUESS_WIDTH{1'b0}};
// per way, for an RTP candidate: the stored one (RTP_PENDING) is of its SSRC and 1..16
// behind (confirms)
reg [WAYS-1:0]                 hit_rtp_confirms = {WAYS{1'b0}};
// per way: the request is an RTP candidate of the stored SSRC that repeats its sequence
// number, which rules RTP out for the flow (RTP_OFF, kept in SPOKE: a UDP flow has no
// first message held, a TCP flow no RTP candidate)
reg [WAYS-1:0]                 hit_rtp_repeats = {WAYS{1'b0}};
reg [WAYS*RTP_WIDTH-1:0]       hit_entry_rtp = {WAYS*RTP_WIDTH{1'b0}};
// per way: the way's flow is unknown and still inspected (INSPECTS, class 0); and the
// request, if it hits the way, leaves its RTP field as stored (not an RTP candidate that
// replaces the stored one without confirming it): the decision takes both from these
// registers and hit_way_rtp, not from the hit way's class and flags (through them, hit_way
// into the written entry's RTP field was a failing path at seed 3 of make timing at
// d450c45, -0.34 ns)
reg [WAYS-1:0]                 hit_entry_open = {WAYS{1'b0}};
reg [WAYS-1:0]                 hit_entry_keeps_rtp = {WAYS{1'b0}};
// hit_way once more, for the RTP field's choice alone (48 bits of it): equal to hit_way from
// the first clock on; every bit powers up to the opposite, which keeps synthesis from merging
// the two
reg [WAYS-1:0]                 hit_way_rtp = {WAYS{1'b1}};
reg [GUESS_WIDTH-1:0]          hit_victim_guess = {GUESS_WIDTH{1'b0}};
reg [WAYS*NAME_TRIES_WIDTH-1:0] hit_entry_name_tries = {WAYS*NAME_TRIES_WIDTH{1'b0}};
reg [WAYS*NAMES_WIDTH-1:0]     hit_names = {WAYS*NAMES_WIDTH{1'b0}};
// per way: a name of the flow at this bucket and way is being read (a list entry, not stale)
reg [WAYS-1:0]                 hit_name_busy = {WAYS{1'b0}};
// what the decision's guess needs, put together here so that it is three LUT levels from
// these registers (it was the vTC's worst path, through the decision's if-chain): per way,
// the frame ends its flow unknown with a stored guess if that way hits (the way's class 0,
// not found now, its guess not 0); a request the guess may be taken for (valid, parsed, not
// while clearing, ending its flow); a hit at all, a free way, an expired way; a miss's own
// guess, unless its packet is classified now
reg [WAYS-1:0]                 hit_own_guesses = {WAYS{1'b0}};
reg                            hit_ends = 1'b0;
reg                            hit_any = 1'b0;
reg                            hit_free_any = 1'b0;
reg                            hit_expired_any = 1'b0;
reg                            hit_miss_guesses = 1'b0;

always @(posedge clk) begin
    hit_way <= hit_lowest;
    hit_way_rtp <= hit_lowest;
    hit_free_way <= lowest(~cmp_entry_valid);
    hit_expired_way <= victim;
    hit_entry_pending <= cmp_entry_pending;
    hit_entry_opened <= cmp_entry_opened;
    hit_entry_spoke <= cmp_entry_spoke;
    hit_entry_holds <= entry_holds;
    hit_entry_first <= cmp_entry_first;
    hit_entry_guess <= cmp_entry_guess;
    hit_rtp_confirms <= rtp_confirms;
    for (n = 0; n < WAYS; n = n + 1) begin
        hit_rtp_repeats[n] <= cmp_rtp && cmp_entry_class[CLASS_WIDTH*n +: CLASS_WIDTH] == 4'd0
            && cmp_entry_pending[n] && &cmp_ssrc_equal[4*n +: 4] && cmp_sequence_equal[n];
        hit_entry_open[n] <= cmp_entry_inspects[n]
            && cmp_entry_class[CLASS_WIDTH*n +: CLASS_WIDTH] == 4'd0;
        // an RTP candidate may replace the stored one: none stored, or one of its SSRC
        hit_entry_keeps_rtp[n] <= !(cmp_entry_inspects[n]
            && cmp_entry_class[CLASS_WIDTH*n +: CLASS_WIDTH] == 4'd0 && cmp_rtp
            && (!(cmp_entry_class[CLASS_WIDTH*n +: CLASS_WIDTH] == 4'd0 && cmp_entry_pending[n])
                || &cmp_ssrc_equal[4*n +: 4])
            && !rtp_confirms[n]);
    end
    hit_entry_rtp <= cmp_entry_rtp;
    hit_victim_guess <= victim_guess;
    for (n = 0; n < WAYS; n = n + 1) begin
        hit_own_guesses[n] <= cmp_entry_class[CLASS_WIDTH*n +: CLASS_WIDTH] == 4'd0
            && cmp_entry_guess[GUESS_WIDTH*n +: GUESS_WIDTH] != 4'd0
            && !(cmp_entry_inspects[n] && ((cmp_match != 4'd0 && !entry_holds[n])
                                           || (cmp_rtp && rtp_confirms[n])));
    end
    hit_ends <= cmp_valid && cmp_parsed && !cmp_clearing && cmp_end;
    hit_any <= |hit;
    hit_free_any <= |(~cmp_entry_valid);
    hit_expired_any <= |expired;
    hit_miss_guesses <= cmp_guess != 4'd0
        && !(cmp_payload && INSPECT_LIMIT != 4'd0 && cmp_match != 4'd0);
    if (rst) begin
        hit_ends <= 1'b0;
    end
    hit_entry_name_tries <= cmp_entry_name_tries;
    hit_names <= cmp_names;
    hit_name_busy <= cmp_name_busy;
    hit_entry_inspects <= cmp_entry_inspects;
    hit_entry_class <= cmp_entry_class;
    hit_entry_inspected <= cmp_entry_inspected;
end

// ---- decide -------------------------------------------------------------------

// the hit way's fields (all zero on a miss)
reg [CLASS_WIDTH-1:0]     hit_class;
reg [INSPECTED_WIDTH-1:0] hit_inspected;
reg                       hit_inspects;
reg                       hit_flag;        // PENDING / REFINE
reg                       hit_opened;      // OPENED, SPOKE, OPENED and never inspected
reg                       hit_spoke;
reg                       hit_first;
reg                       hit_holds;       // the hit way holds the match back
reg [GUESS_WIDTH-1:0]     hit_stored_guess;
reg                       hit_confirms;    // the RTP candidate confirms the stored one
reg                       hit_repeats;     // it repeats the stored sequence number
reg [RTP_WIDTH-1:0]       hit_stored_rtp;  // the hit way's RTP field
reg                       hit_open;        // the hit way's flow is unknown, inspected
reg                       hit_keeps_rtp;   // the hit way's RTP field stays as stored
reg [NAME_TRIES_WIDTH-1:0] hit_name_tries; // the hit way's NAME_TRIES
reg                       hit_named;       // ... NAMED and application
reg [5:0]                 hit_app;
reg                       hit_name_busy_way; // a name of the hit way's flow is being read

always @* begin
    hit_class = {CLASS_WIDTH{1'b0}};
    hit_inspected = {INSPECTED_WIDTH{1'b0}};
    hit_inspects = 1'b0;
    hit_flag = 1'b0;
    hit_opened = 1'b0;
    hit_spoke = 1'b0;
    hit_first = 1'b0;
    hit_holds = 1'b0;
    hit_stored_guess = {GUESS_WIDTH{1'b0}};
    hit_confirms = 1'b0;
    hit_repeats = 1'b0;
    hit_stored_rtp = {RTP_WIDTH{1'b0}};
    hit_open = |(hit_way & hit_entry_open);
    hit_keeps_rtp = |(hit_way_rtp & hit_entry_keeps_rtp);
    hit_name_tries = {NAME_TRIES_WIDTH{1'b0}};
    hit_named = 1'b0;
    hit_app = 6'd0;
    for (n = 0; n < WAYS; n = n + 1) begin
        hit_name_tries = hit_name_tries | ({NAME_TRIES_WIDTH{hit_way[n]}}
            & hit_entry_name_tries[NAME_TRIES_WIDTH*n +: NAME_TRIES_WIDTH]);
        hit_named = hit_named | (hit_way[n] && hit_names[NAMES_WIDTH*n + 6]);
        hit_app = hit_app | ({6{hit_way[n]}} & hit_names[NAMES_WIDTH*n +: 6]);
    end
    hit_name_busy_way = |(hit_way & hit_name_busy);
    for (n = 0; n < WAYS; n = n + 1) begin
        hit_flag = hit_flag | (hit_way[n] && hit_entry_pending[n]);
        hit_opened = hit_opened | (hit_way[n] && hit_entry_opened[n]);
        hit_spoke = hit_spoke | (hit_way[n] && hit_entry_spoke[n]);
        hit_first = hit_first | (hit_way[n] && hit_entry_first[n]);
        hit_holds = hit_holds | (hit_way[n] && hit_entry_holds[n]);
        hit_stored_guess = hit_stored_guess
            | ({GUESS_WIDTH{hit_way[n]}} & hit_entry_guess[GUESS_WIDTH*n +: GUESS_WIDTH]);
        hit_confirms = hit_confirms | (hit_way[n] && hit_rtp_confirms[n]);
        hit_repeats = hit_repeats | (hit_way[n] && hit_rtp_repeats[n]);
        hit_stored_rtp = hit_stored_rtp
            | ({RTP_WIDTH{hit_way_rtp[n]}} & hit_entry_rtp[RTP_WIDTH*n +: RTP_WIDTH]);
        hit_class = hit_class | ({CLASS_WIDTH{hit_way[n]}} & hit_entry_class[CLASS_WIDTH*n +: CLASS_WIDTH]);
        hit_inspected = hit_inspected
            | ({INSPECTED_WIDTH{hit_way[n]}} & hit_entry_inspected[INSPECTED_WIDTH*n +: INSPECTED_WIDTH]);
        hit_inspects = hit_inspects | (hit_way[n] && hit_entry_inspects[n]);
    end
end

reg [WAYS-1:0]            write_way;
reg [CLASS_WIDTH-1:0]     class_before;
reg [CLASS_WIDTH-1:0]     class_after;
reg [INSPECTED_WIDTH-1:0] inspected;
reg                       unparsed;
reg                       seen;
reg                       classified;
reg                       inserted;
reg                       occupied;
reg                       evicted;
reg                       failed;
reg                       refined;
reg                       pending_after;   // the entry's PENDING / REFINE bit
reg [GUESS_WIDTH-1:0]     guess_after;     // the entry's GUESS field
reg [RTP_WIDTH-1:0]       rtp_after;
reg                       opened_after;    // the entry's OPENED and SPOKE
reg                       spoke_after;
reg                       guess_own;       // the frame ends its unknown flow: guess it
reg                       guess_victim;    // the frame evicts an unknown flow: guess that
reg [GUESS_WIDTH-1:0]     own_guess;       // the frame's flow's guess (stored or new)
reg [CLASS_WIDTH-1:0]     found;           // the class an unknown flow's packet proves
reg                       name_try;        // the frame is a try to name its flow
reg [NAME_TRIES_WIDTH-1:0] name_tries_after;
reg [5:0]                 app_before;      // the flow's application before this frame
reg [1:0]                 written_way;     // write_way's index

// the signature's class, compared a cycle ahead: the decision's compares start at a register
// (the class's value alone goes into the entry and the events); an HTTP, TLS, SSH or SMTP
// match after another protocol's first message (SPOKE) is not taken
wire match_taken = hit_matched && !hit_holds;
wire found_any = match_taken || (hit_rtp && hit_confirms);
// PENDING after: SMTP, CONNECT (may become TLS), STUN over UDP (may become DTLS)
wire found_stays = hit_match_smtp || hit_match_http_connect || hit_match_stun_udp;

always @* begin
    write_way = {WAYS{1'b0}};
    class_before = {CLASS_WIDTH{1'b0}};
    class_after = {CLASS_WIDTH{1'b0}};
    inspected = {INSPECTED_WIDTH{1'b0}};
    unparsed = 1'b0;
    seen = 1'b0;
    classified = 1'b0;
    inserted = 1'b0;
    occupied = 1'b0;
    evicted = 1'b0;
    failed = 1'b0;
    refined = 1'b0;
    pending_after = 1'b0;
    own_guess = hit_guess;
    // the request's RTP field, or the hit way's as stored; only a hit or an insertion writes
    // it (a hit replaces a stored candidate of the same SSRC or none, when it does not confirm
    // it, in a flow unknown and inspected: see hit_entry_keeps_rtp)
    rtp_after = hit_keeps_rtp ? hit_stored_rtp : hit_rtp_id;
    guess_victim = 1'b0;
    // a signature's class, else RTP if the stored SSRC's sequence number moved 1..16 on
    found = match_taken ? hit_match : (hit_rtp && hit_confirms ? RTP : 4'd0);
    opened_after = 1'b0;
    spoke_after = 1'b0;

    if (!hit_valid) begin
        // nothing to do
    end else if (!hit_parsed) begin
        unparsed = 1'b1;
    end else if (hit_clearing) begin
        seen = 1'b1;
        failed = 1'b1;
    end else if (|hit_way) begin
        class_before = hit_class;
        class_after = hit_class;
        inspected = hit_inspected;
        write_way = hit_way;
        pending_after = hit_flag;
        own_guess = hit_stored_guess;
        opened_after = hit_opened;
        spoke_after = hit_spoke;
        if (hit_open) begin
            class_after = found;
            classified = found_any;
            pending_after = found_any ? found_stays : hit_flag || hit_rtp;
            // the first SSRC stays; its sequence number follows (an RTP candidate matches no
            // signature, its first byte being 0x80..0xBF: only a confirmation classifies it):
            // rtp_after, above
            // the first message of a flow stored by its SYN: another protocol's or not
            if (!found_any && hit_first) begin
                spoke_after = hit_other;
            end
            // an RTP candidate that repeats the stored sequence number: never RTP (RTP_OFF)
            if (hit_repeats) begin
                spoke_after = 1'b1;
            end
        end else if (hit_inspects && hit_match_refines) begin
            // refined: an HTTP CONNECT tunnel's or a STARTTLS session's TLS, a STUN flow's
            // DTLS (TLS matches TCP only, DTLS UDP only: a flow refines within its transport)
            class_after = hit_match;
            refined = 1'b1;
            pending_after = 1'b0;
        end
    end else begin
        seen = 1'b1;
        if (hit_payload && INSPECT_LIMIT != 4'd0) begin
            class_after = hit_match;
            inspected = 4'd1;
            classified = hit_matched;
            pending_after = hit_matched ? found_stays : hit_rtp;
            spoke_after = hit_syn && !hit_matched && hit_other;
        end
        opened_after = hit_syn;
        if (|hit_free_way) begin
            write_way = hit_free_way;
            inserted = 1'b1;
            occupied = 1'b1;
        end else if (|hit_expired_way) begin
            write_way = hit_expired_way;
            inserted = 1'b1;
            evicted = 1'b1;
            guess_victim = hit_victim_guess != 4'd0;
        end else begin
            class_after = 4'd0;
            classified = 1'b0;
            failed = 1'b1;
        end
    end
    // one guess per frame: the evicted flow's, else the frame's own flow's if the frame
    // ends it while unknown and its ports guess a class (not guessed before)
    // (the same as hit_valid && hit_parsed && !hit_clearing && its end && !failed
    // && class_after == 4'd0 && own_guess != 4'd0 && !guess_victim, from the hit stage's
    // terms: a hit way's, else a miss's that inserts without evicting a guessed flow)
    guess_own = hit_ends && (|(hit_way & hit_own_guesses) || (!hit_any && hit_miss_guesses
        && (hit_free_any || (hit_expired_any && hit_victim_guess == 4'd0))));
    guess_after = guess_own ? 4'd0 : own_guess;

    // a try to name the flow: a payload packet of a flow not named, tried fewer than
    // INSPECT_PACKETS times, no name of it being read (whatever its class: the command, a
    // cycle later, reads the name if the class after carries one and a list entry is free)
    app_before = (|hit_way && hit_named) ? hit_app : 6'd0;
    name_try = 1'b0;
    name_tries_after = {NAME_TRIES_WIDTH{1'b0}};
    if (|hit_way && hit_valid && hit_parsed && !hit_clearing) begin
        name_try = names_on && !hit_named && hit_payload && hit_name_tries < INSPECT_LIMIT
            && !hit_name_busy_way;
        name_tries_after = hit_name_tries + {{(NAME_TRIES_WIDTH-1){1'b0}}, name_try};
    end else if (inserted) begin
        name_try = names_on && hit_payload && INSPECT_LIMIT != 4'd0;
        name_tries_after = {{(NAME_TRIES_WIDTH-1){1'b0}}, name_try};
    end
    written_way = 2'd0;
    for (n = 0; n < WAYS; n = n + 1) begin
        if (write_way[n]) begin
            written_way = n[1:0];
        end
    end
end

reg                   dec_valid = 1'b0;
reg                   write_insert_reg = 1'b0;   // write_entry_reg is a new flow's
reg [1:0]             write_way_index_reg = 2'd0;
reg [5:0]             dec_app = 6'd0;
reg                   dec_name_try = 1'b0;
reg [7:0]             dec_name_start = 8'd0;
reg [15:0]            dec_name_end = 16'd0;
reg                   dec_name_tcp = 1'b0;
reg [CLASS_WIDTH-1:0] dec_before = {CLASS_WIDTH{1'b0}};
reg [CLASS_WIDTH-1:0] dec_after = {CLASS_WIDTH{1'b0}};

always @(posedge clk) begin
    dec_valid <= hit_valid;
    dec_before <= class_before;
    dec_after <= class_after;
    write_way_reg <= write_way;
    write_bucket_reg <= hit_bucket;
    write_entry_reg <= entry(hit_key, class_after, inspected, hit_timestamp, pending_after,
                             guess_after, rtp_after, opened_after, spoke_after,
                             name_tries_after);
    write_insert_reg <= inserted;
    write_way_index_reg <= written_way;
    dec_app <= app_before;
    dec_name_try <= name_try;
    dec_name_start <= hit_name_start;
    dec_name_end <= hit_name_end;
    dec_name_tcp <= !hit_key[96];
    event_unparsed <= unparsed;
    event_seen <= seen;
    event_classified <= classified;
    event_class <= class_after;
    event_refined <= refined;
    event_refined_from <= class_before;
    event_guessed <= guess_own || guess_victim;
    event_guess_class <= guess_victim ? hit_victim_guess : own_guess;
    event_inserted <= inserted;
    event_occupied <= occupied;
    event_evicted <= evicted;
    event_failed <= failed;
    if (rst) begin
        dec_valid <= 1'b0;
        write_way_reg <= {WAYS{1'b0}};
        write_insert_reg <= 1'b0;
        event_unparsed <= 1'b0;
        event_seen <= 1'b0;
        event_classified <= 1'b0;
        event_refined <= 1'b0;
        event_guessed <= 1'b0;
        event_inserted <= 1'b0;
        event_occupied <= 1'b0;
        event_evicted <= 1'b0;
        event_failed <= 1'b0;
    end
end

// ---- names: the commands, the list of names being read, their results -------------

// Each step starts at registers.  A request's command comes the cycle after its decision:
// a try whose class after carries a name reads it if a list entry is free, and takes the
// entry (its bucket and way the insertion's or the hit's, the cycle after: requests are six
// or more cycles apart, so the next one sees it).  A result is registered (r_), its entry
// read from the list (s_), checked again and made pending (p_), then written into the way's
// names RAM; the pipeline's insertion writes first (that way's {NAMED, application} to 0):
// a pending result waits a cycle behind it, and one at the insertion's place, or whose entry
// went stale meanwhile, is dropped (another flow's now).  Named results come from the
// matcher, one per walk of it (five or more cycles apart): a result waits at most one cycle.
wire [1:0]               dec_name_kind = dec_after == HTTP ? NAME_HTTP
    : dec_after == TLS ? NAME_TLS : dec_after == DNS ? NAME_DNS : NAME_NONE;
reg [BUCKET_BITS-1:0]    name_cmd_bucket = {BUCKET_BITS{1'b0}};
reg [1:0]                name_cmd_way = 2'd0;

always @(posedge clk) begin
    // the name command (every request has one, in order)
    name_cmd_valid <= dec_valid;
    name_cmd_kind <= dec_name_try && list_free_found ? dec_name_kind : NAME_NONE;
    name_cmd_start <= {8'd0, dec_name_start};
    name_cmd_end <= dec_name_end;
    name_cmd_tcp <= dec_name_tcp;
    name_cmd_tag <= list_free;
    name_cmd_bucket <= write_bucket_reg;
    name_cmd_way <= write_way_index_reg;
    if (rst) begin
        name_cmd_valid <= 1'b0;
    end
end

wire                     insert_now = write_insert_reg && |write_way_reg;
wire                     alloc_now = name_cmd_valid && name_cmd_kind != NAME_NONE;
reg                      r_res_valid = 1'b0;
reg [NAME_TAG_WIDTH-1:0] r_res_tag = {NAME_TAG_WIDTH{1'b0}};
reg                      r_res_named = 1'b0;
reg [5:0]                r_res_app = 6'd0;
reg                      r_skip_valid = 1'b0;
reg [NAME_TAG_WIDTH-1:0] r_skip_tag = {NAME_TAG_WIDTH{1'b0}};
reg                      s_valid = 1'b0;
reg [NAME_TAG_WIDTH-1:0] s_tag = {NAME_TAG_WIDTH{1'b0}};
reg [BUCKET_BITS-1:0]    s_bucket = {BUCKET_BITS{1'b0}};
reg [1:0]                s_way = 2'd0;
reg [5:0]                s_app = 6'd0;
reg                      p_valid = 1'b0;
reg [BUCKET_BITS-1:0]    p_bucket = {BUCKET_BITS{1'b0}};
reg [1:0]                p_way = 2'd0;
reg [5:0]                p_app = 6'd0;
// the insertion now is at the result's place (s_: its entry; p_: the pending one)
wire                     s_replaced = insert_now && write_bucket_reg == s_bucket
    && write_way_index_reg == s_way;
wire                     p_replaced = write_bucket_reg == p_bucket && write_way_index_reg == p_way;
wire                     p_waits = p_valid && insert_now && !p_replaced;

assign names_wr_way = insert_now ? write_way_reg : p_valid ? 4'b0001 << p_way : {WAYS{1'b0}};
assign names_wr_bucket = insert_now ? write_bucket_reg : p_bucket;
assign names_wr_data = insert_now ? {NAMES_WIDTH{1'b0}} : {1'b1, p_app};

// the registered result's list entry (a multiplexer by the tag, each entry's fields side by
// side: an indexed part-select of the flat list would be a shifter), and whether the pending
// result's entry went stale
// {in use, not answered and not stale; its bucket; its way}
function [BUCKET_BITS+2:0] list_entry(input [NAME_TAG_WIDTH-1:0] tag,
                                      input [NAME_LIST-1:0] valid, input [NAME_LIST-1:0] done,
                                      input [NAME_LIST-1:0] stale,
                                      input [BUCKET_BITS*NAME_LIST-1:0] bucket,
                                      input [2*NAME_LIST-1:0] ways);
    integer e;
    begin
        list_entry = {(BUCKET_BITS+3){1'b0}};
        for (e = 0; e < NAME_LIST; e = e + 1) begin
            if (tag == e[NAME_TAG_WIDTH-1:0]) begin
                list_entry = {valid[e] && !done[e] && !stale[e],
                              bucket[BUCKET_BITS*e +: BUCKET_BITS], ways[2*e +: 2]};
            end
        end
    end
endfunction

function list_bit(input [NAME_TAG_WIDTH-1:0] tag, input [NAME_LIST-1:0] bits);
    integer e;
    begin
        list_bit = 1'b0;
        for (e = 0; e < NAME_LIST; e = e + 1) begin
            if (tag == e[NAME_TAG_WIDTH-1:0]) begin
                list_bit = bits[e];
            end
        end
    end
endfunction

wire                     r_entry_ok;
wire [BUCKET_BITS-1:0]   r_entry_bucket;
wire [1:0]               r_entry_way;
assign {r_entry_ok, r_entry_bucket, r_entry_way} =
    list_entry(r_res_tag, list_valid, list_done, list_stale, list_bucket, list_way);
wire                     s_entry_stale = list_bit(s_tag, list_stale);

// the lowest free entry, from the list a cycle old (an entry taken shows a cycle later):
// {found, index}
function [NAME_TAG_WIDTH:0] lowest_free(input [NAME_LIST-1:0] valid);
    integer e;
    begin
        lowest_free = {(NAME_TAG_WIDTH+1){1'b0}};
        for (e = NAME_LIST - 1; e >= 0; e = e - 1) begin
            if (!valid[e]) begin
                lowest_free = {1'b1, e[NAME_TAG_WIDTH-1:0]};
            end
        end
    end
endfunction

wire                     free_found;
wire [NAME_TAG_WIDTH-1:0] free_index;
assign {free_found, free_index} = lowest_free(list_valid);

always @(posedge clk) begin
    r_res_valid <= name_res_valid;
    r_res_tag <= name_res_tag;
    r_res_named <= name_res_named;
    r_res_app <= name_res_app;
    r_skip_valid <= name_skip_valid;
    r_skip_tag <= name_skip_tag;
    list_free_found <= free_found;
    list_free <= free_index;
    for (n = 0; n < NAME_LIST; n = n + 1) begin
        if (list_done[n] && list_hold[4*n +: 4] != 4'd0) begin
            list_hold[4*n +: 4] <= list_hold[4*n +: 4] - 1'b1;
        end
        if (list_done[n] && list_hold[4*n +: 4] == 4'd0) begin
            list_done[n] <= 1'b0;
            list_valid[n] <= 1'b0;
        end
        if (r_skip_valid && r_skip_tag == n[NAME_TAG_WIDTH-1:0]) begin
            list_valid[n] <= 1'b0;
        end
        // a flow inserted at an entry's place: its name is another flow's now
        if (insert_now && list_valid[n]
                && list_bucket[BUCKET_BITS*n +: BUCKET_BITS] == write_bucket_reg
                && list_way[2*n +: 2] == write_way_index_reg) begin
            list_stale[n] <= 1'b1;
        end
        if (r_res_valid && r_res_tag == n[NAME_TAG_WIDTH-1:0] && list_valid[n]) begin
            list_done[n] <= 1'b1;
            list_hold[4*n +: 4] <= NAME_HOLD;
        end
        // taken by the command now (its flow's insertion was a cycle before)
        if (alloc_now && name_cmd_tag == n[NAME_TAG_WIDTH-1:0]) begin
            list_valid[n] <= 1'b1;
            list_bucket[BUCKET_BITS*n +: BUCKET_BITS] <= name_cmd_bucket;
            list_way[2*n +: 2] <= name_cmd_way;
            list_stale[n] <= 1'b0;
            list_done[n] <= 1'b0;
        end
    end
    // a named result of an entry in use, not answered yet and not stale: its place
    s_valid <= r_res_valid && r_res_named && r_entry_ok;
    s_tag <= r_res_tag;
    s_bucket <= r_entry_bucket;
    s_way <= r_entry_way;
    s_app <= r_res_app;
    // the pending result: written unless the pipeline inserts now (then it waits, or is
    // dropped if the insertion is at its place); the next one is taken when it does not wait
    event_named <= p_valid && !insert_now;
    event_named_app <= p_app;
    if (!p_waits) begin
        p_valid <= s_valid && !s_entry_stale && !s_replaced;
        p_bucket <= s_bucket;
        p_way <= s_way;
        p_app <= s_app;
    end
    if (rst || clearing_reg) begin
        r_res_valid <= 1'b0;
        r_skip_valid <= 1'b0;
        s_valid <= 1'b0;
        list_valid <= {NAME_LIST{1'b0}};
        list_done <= {NAME_LIST{1'b0}};
        list_free_found <= 1'b1;
        list_free <= {NAME_TAG_WIDTH{1'b0}};
        p_valid <= 1'b0;
        event_named <= 1'b0;
    end
end

// ---- write: the policy of the flow's application or class --------------------

// DSCP marking by the application the flow had before this frame when its policy decides
// (bit 6), else by the class it had before this frame
/* verilator lint_off UNUSEDSIGNAL */ // bit 6 is always 0
wire [7:0] class_policy = policy[8*dec_before +: 8];
/* verilator lint_on UNUSEDSIGNAL */
assign app_policy_addr = dec_app;
wire       app_decides = app_policy_data[6];

reg        mark_valid = 1'b0;
reg        mark_rewrite = 1'b0;
reg [5:0]  mark_dscp = 6'd0;
reg [3:0]  mark_after = 4'd0;
reg        mark_ipv6 = 1'b0;
reg [1:0]  mark_tags = 2'd0;
reg [7:4]  mark_byte0 = 4'd0;
reg [5:0]  mark_byte1 = 6'd0;
reg [15:0] mark_checksum_base = 16'd0;
reg [5:0]  mark_app = 6'd0;

always @(posedge clk) begin
    mark_valid <= dec_valid;
    mark_rewrite <= app_decides ? app_policy_data[7] : dec_before != 4'd0 && class_policy[7];
    mark_dscp <= app_decides ? app_policy_data[5:0] : class_policy[5:0];
    mark_after <= dec_after;
    mark_ipv6 <= dec_ipv6;
    mark_tags <= dec_tags;
    mark_byte0 <= dec_byte0;
    mark_byte1 <= dec_byte1;
    mark_checksum_base <= dec_checksum_base;
    mark_app <= dec_app;
    if (rst) begin
        mark_valid <= 1'b0;
    end
end

// ---- answer: how the frame leaves -------------------------------------------

// the checksum base plus the new DSCP, folded once more (the base is at most 0xFFFF): the
// sum and the sum plus one side by side, the carry out choosing (one adder deep, not two)
wire [16:0] marked_sum = {1'b0, mark_checksum_base} + {9'd0, mark_dscp, 2'b00};
wire [15:0] marked_sum_1 = mark_checksum_base + {8'd0, mark_dscp, 2'b01};
wire [15:0] new_checksum = ~(marked_sum[16] ? marked_sum_1 : marked_sum[15:0]);

always @(posedge clk) begin
    decision_valid <= mark_valid;
    decision_app <= mark_app;
    if (mark_ipv6) begin
        decision <= {mark_rewrite, 1'b1, mark_tags, mark_byte0[7:4], mark_dscp[5:2],
                     mark_dscp[1:0], mark_byte1[5:0], 8'd0, mark_after};
    end else begin
        decision <= {mark_rewrite, 1'b0, mark_tags, mark_dscp, mark_byte1[1:0], new_checksum,
                     mark_after};
    end
    if (rst) begin
        decision_valid <= 1'b0;
    end
end

endmodule

`resetall
