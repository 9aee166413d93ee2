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
 * vTC signatures: which class one payload-carrying packet proves.
 *
 * Looks at the first 12 payload bytes, the L4 protocol, the ports and the
 * payload length over three cycles, each short enough for 156.25 MHz: the
 * byte, port and length compares (registered), each signature's match from
 * them (registered), the lowest class number that matched (match is two
 * cycles behind the inputs).  The rules were chosen against nDPI's verdicts on the shared
 * captures and are listed in hdl/README.md (vTC section) and
 * hdl/tests/vtc_model.py (signature()).  Class numbers: 1 HTTP, 2 TLS,
 * 3 DNS, 4 SSH, 5 QUIC, 6 SIP, 7 RTP, 8 BitTorrent, 9 SMTP, 10 NTP, 11 STUN,
 * 12 DTLS; 0 none.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_signatures
(
    input  wire         clk,

    // payload byte n in bits [8n+7:8n]
    input  wire [95:0]  payload,
    // the same bytes from a register of their own, for the HTTP and SIP method words alone
    // (the 30-odd word compares and the rest from one register: the words' compares were
    // failing paths at seed 2 of make timing at d450c45, 5.8 ns of 6.9 routing)
    input  wire [95:0]  payload_words,
    input  wire         tcp,
    input  wire         udp,
    input  wire [15:0]  sport,
    input  wire [15:0]  dport,
    // the payload's length in bytes (the IP length beyond the headers)
    input  wire [16:0]  payload_length,
    // the same less 2 and less 20 (bit 17 set: it is shorter)
    input  wire [17:0]  length_less_2,
    input  wire [17:0]  length_less_20,
    output reg  [3:0]   match,
    // with match: a UDP RTP candidate (RTP header, both ports >= 1024, L >= 12), which
    // the flow table confirms with a second packet of its SSRC; an HTTP CONNECT request
    output reg          rtp_candidate = 1'b0,
    output reg          connect = 1'b0,
    // with match: the payload may be another protocol's message (3 bytes or more, not
    // four zero bytes, not a STARTTLS greeting): what the flow table holds against a
    // later HTTP, TLS, SSH or SMTP match when it is a flow's first
    output reg          other = 1'b0
);

reg [95:0] text;  // the payload with byte 0 in the top bits, as string literals are
reg [95:0] words; // payload_words, the same way
integer n;

always @* begin
    for (n = 0; n < 12; n = n + 1) begin
        text[95-8*n -: 8] = payload[8*n +: 8];
        words[95-8*n -: 8] = payload_words[8*n +: 8];
    end
end

wire [7:0]  p0 = text[95:88];
wire [7:0]  p1 = text[87:80];
wire [7:0]  p2 = text[79:72];
wire [7:0]  p3 = text[71:64];
wire [7:0]  p4 = text[63:56];
wire [7:0]  p5 = text[55:48];
wire [7:0]  p6 = text[47:40];
wire [7:0]  p7 = text[39:32];
wire [7:0]  p11 = text[7:0];
wire [31:0] head = text[95:64];
wire [31:0] head_upper = head & 32'hDFDFDFDF;
wire [31:0] words_head = words[95:64];
wire [7:0]  words_p4 = words[63:56];
// TCP's 2-byte length prefix (DNS, RFC 4571 RTP); STUN's message length
wire [15:0] prefix = {p0, p1};
wire [15:0] stun_length = {p2, p3};

localparam [3:0] UTP_SYN = 4'd4;

function has_port(input [15:0] source, input [15:0] destination, input [15:0] number);
    has_port = source == number || destination == number;
endfunction

// version 2, a static (0..34) or dynamic (96..127) payload type
function rtp_header(input [1:0] version, input [6:0] payload_type);
    rtp_header = version == 2'd2 && (payload_type <= 7'd34 || payload_type >= 7'd96);
endfunction

wire port_25 = has_port(sport, dport, 16'd25);
wire port_53 = has_port(sport, dport, 16'd53);
wire port_123 = has_port(sport, dport, 16'd123);
wire port_587 = has_port(sport, dport, 16'd587);
wire port_5060 = has_port(sport, dport, 16'd5060);
wire high_ports = sport >= 16'd1024 && dport >= 16'd1024;

// one bit per method word (nDPI's list, each with its space, cut at 12 bytes) and the
// reply's start, from payload_words: each word is compared in cycle 1 in two parts, its first
// four bytes and the rest (1 for a word of four), each registered, and the parts ANDed and the
// words ORed in cycle 2, so that no compare of cycle 1 is wider than 32 bits (whole words of up
// to 8 bytes compared at once, with the signatures built on them, were failing paths of make
// timing at 24a13d9). Bits 1 and 0 are the two words HTTP shares: OPTIONS (RTSP's
// "OPTIONS rtsp://", SIP's on port 5060) and CONNECT (a NATS client's "CONNECT {")
localparam HTTP_OPTIONS = 1, HTTP_CONNECT = 0;
wire [14:0] http_heads = {words_head == "GET ", words_head == "POST", words_head == "HEAD",
    words_head == "PUT ", words_head == "PATC", words_head == "DELE", words_head == "MKCO",
    words_head == "MOVE", words_head == "COPY", words_head == "LOCK", words_head == "UNLO",
    words_head == "REPO", words_head == "HTTP", words_head == "OPTI", words_head == "CONN"};
wire [14:0] http_tails = {1'b1, words_p4 == " ", words_p4 == " ", 1'b1, words[63:48] == "H ",
    words[63:40] == "TE ", words[63:48] == "L ", words_p4 == " ", words_p4 == " ",
    words_p4 == " ", words[63:40] == "CK ", words[63:40] == "RT ", words_p4 == "/",
    words[63:32] == "ONS ", words[63:32] == "ECT "};
// PROPFIND, PROPPATCH, RPC_CONNECT, RPC_IN_DATA, RPC_OUT_DATA in three or four parts: bytes
// 0..3 (PROP, RPC_), 4..5, and the rest, the rest of the three longest in two parts of three
// bytes (the rest compared whole, 48 bits, was a failing path at seed 2 of make timing at
// d450c45, -0.49 ns)
localparam PROP = 1, RPC = 0;
wire [1:0] http_long_heads = {words_head == "PROP", words_head == "RPC_"};
wire [4:0] http_long_mids = {words[63:48] == "FI", words[63:48] == "PA", words[63:48] == "CO",
    words[63:48] == "IN", words[63:48] == "OU"};
wire [7:0] http_long_tails = {words[47:24] == "ND ", words[47:16] == "TCH ",
    words[47:24] == "NNE", words[23:0] == "CT ", words[47:24] == "_DA", words[23:0] == "TA ",
    words[47:24] == "T_D", words[23:0] == "ATA"};
wire [14:0] sip_words = {words_head == "SIP/", words_head == "INVI", words_head == "REGI",
    words_head == "ACK ", words_head == "BYE ", words_head == "CANC", words_head == "OPTI",
    words_head == "NOTI", words_head == "SUBS", words_head == "MESS", words_head == "INFO",
    words_head == "PRAC", words_head == "REFE", words_head == "UPDA", words_head == "PUBL"};
wire stun_classic_type = prefix == 16'h0001 || prefix == 16'h0101 || prefix == 16'h0111;
wire stun_cookie = text[63:32] == 32'h2112A442;
// a long header (form and fixed bits) with v1, v2, an IETF draft or Google's Q0xx/T0xx; a
// gQUIC public header (version flag, connection ID) with Q0xx/T0xx at byte 9
wire quic_google_long = {p1, p2} == "Q0" || {p1, p2} == "T0";
// RFC 9000's greasing versions (0x?a?a?a?a) and mvfst's (0xfaceb00x) too
wire [31:0] quic_version = {p1, p2, p3, p4};
wire quic_public = {p0[7], p0[3], p0[0]} == 3'b011
    && (text[23:8] == "Q0" || text[23:8] == "T0");

// ---- cycle 1: the compares ----------------------------------------------------

reg tcp_reg = 1'b0;
reg udp_reg = 1'b0;
reg port_53_reg = 1'b0;
reg port_123_reg = 1'b0;
reg port_mail_reg = 1'b0;      // 25 or 587
reg port_5060_reg = 1'b0;
reg high_ports_reg = 1'b0;
reg length_5_reg = 1'b0;       // the payload length is 5, at least 12, 14, 48
reg length_12_reg = 1'b0;
reg length_14_reg = 1'b0;
reg length_48_reg = 1'b0;
reg [14:0] http_heads_reg = 15'd0;
reg [14:0] http_tails_reg = 15'd0;
reg [1:0] http_long_heads_reg = 2'd0;
reg [4:0] http_long_mids_reg = 5'd0;
reg [7:0] http_long_tails_reg = 8'd0;
reg rtsp_reg = 1'b0;           // bytes 8..11 are rtsp (after OPTIONS: RTSP's)
reg brace_reg = 1'b0;          // byte 8 is { (after CONNECT: a NATS client's)
reg ssdp_notify_reg = 1'b0;    // NOTIFY * (SSDP, not SIP)
reg length_3_reg = 1'b0;       // the payload length is at least 3 / at least 22, at most 64
reg length_22_64_reg = 1'b0;
reg zeros_reg = 1'b0;          // four zero bytes / a STARTTLS greeting (FTP, SMTP; IMAP; POP3)
reg [2:0] greetings_reg = 3'd0;
reg [14:0] sip_words_reg = 15'd0;
reg hello_reg = 1'b0;
reg tls_reg = 1'b0;
reg dns_udp_reg = 1'b0;        // the DNS header checks, over UDP / over TCP
reg dns_tcp_reg = 1'b0;
reg ssh_reg = 1'b0;
// QUIC: a long header's form bits; its version one of v1, v2 / an IETF draft or
// Google's / greasing / mvfst's; a gQUIC public header
reg quic_form_reg = 1'b0;
reg quic_v1_v2_reg = 1'b0;
reg quic_draft_google_reg = 1'b0;
reg quic_grease_reg = 1'b0;
reg quic_mvfst_reg = 1'b0;
reg quic_public_reg = 1'b0;
reg rtp_udp_reg = 1'b0;        // an RTP header at byte 0 / after a length prefix >= 12
reg rtp_tcp_reg = 1'b0;
reg rtp_tcp_fits_reg = 1'b0;   // the prefix's length fits the payload
// STUN: RFC 5389's (the first two bits 0, the magic cookie, its length + 20 <= L) or RFC
// 3489's (no cookie, a Binding type, its length + 20 == L), each part registered apart (the
// whole of each in one cycle was a failing path at 24a13d9)
reg stun_zero_bits_reg = 1'b0;
reg stun_cookie_reg = 1'b0;
reg stun_classic_type_reg = 1'b0;
reg stun_length_fits_reg = 1'b0;
reg stun_length_equal_reg = 1'b0;
reg bittorrent_tcp_reg = 1'b0;
// BitTorrent over UDP: local service discovery, DHT (bencoded), uTP (version 1, type 0..4,
// extension 0..2, a 20-byte header)
reg bittorrent_text_reg = 1'b0;
// uTP: version 1, a type of 1..4, extension 0..2 / a connection ID and a timestamp / not
// a SYN, or a SYN with no time difference
reg utp_reg = 1'b0;
reg utp_ids_reg = 1'b0;
reg utp_syn_ok_reg = 1'b0;
reg utp_extension_reg = 1'b0;
reg length_is_20_reg = 1'b0;
reg hello_smtp_reg = 1'b0;     // EHLO / HELO
reg greeting_reg = 1'b0;       // 220
reg ntp_reg = 1'b0;
reg connect_reg = 1'b0;        // CONN
// DTLS: a record's content type (20..23) and version (nDPI's is_dtls(): DTLS 1.0, 1.2, 1.3,
// OpenSSL's 0x0100); its length's high byte (byte 11) * 256 + the 13-byte header <= L
reg dtls_reg = 1'b0;
reg dtls_fits_reg = 1'b0;

always @(posedge clk) begin
    tcp_reg <= tcp;
    udp_reg <= udp;
    port_53_reg <= port_53;
    port_123_reg <= port_123;
    port_mail_reg <= port_25 || port_587;
    port_5060_reg <= port_5060;
    high_ports_reg <= high_ports;
    length_5_reg <= payload_length == 17'd5;
    length_3_reg <= payload_length >= 17'd3;
    length_22_64_reg <= payload_length >= 17'd22 && payload_length <= 17'd64;
    rtsp_reg <= text[31:0] == "rtsp";
    brace_reg <= text[31:24] == "{";
    ssdp_notify_reg <= text[95:32] == "NOTIFY *";
    zeros_reg <= head == 32'd0;
    greetings_reg <= {head == "220 ", head == "* OK", head == "+OK "};
    length_12_reg <= payload_length >= 17'd12;
    length_14_reg <= payload_length >= 17'd14;
    length_48_reg <= payload_length >= 17'd48;
    http_heads_reg <= http_heads;
    http_tails_reg <= http_tails;
    http_long_heads_reg <= http_long_heads;
    http_long_mids_reg <= http_long_mids;
    http_long_tails_reg <= http_long_tails;
    sip_words_reg <= sip_words;
    hello_reg <= text[95:56] == "hello";
    tls_reg <= (p0 >= 8'h14 && p0 <= 8'h17 && p1 == 8'h03 && p2 <= 8'h04)
        || (p0[7] && p2 == 8'h01 && p3 == 8'h03 && p4 <= 8'h04);
    dns_udp_reg <= p2[6:3] == 4'd0 && p4 == 8'd0 && p5 == 8'd1;
    dns_tcp_reg <= prefix >= 16'd12 && p4[6:3] == 4'd0 && p6 == 8'd0 && p7 == 8'd1;
    ssh_reg <= head == "SSH-";
    quic_form_reg <= p0[7:6] == 2'b11;
    quic_v1_v2_reg <= quic_version == 32'h00000001 || quic_version == 32'h6B3343CF;
    quic_draft_google_reg <= quic_version[31:8] == 24'hFF0000 || quic_google_long;
    quic_grease_reg <= (quic_version & 32'h0F0F0F0F) == 32'h0A0A0A0A;
    quic_mvfst_reg <= quic_version[31:4] == 28'hFACEB00;
    quic_public_reg <= quic_public;
    rtp_udp_reg <= rtp_header(p0[7:6], p1[6:0]);
    rtp_tcp_reg <= prefix >= 16'd12 && rtp_header(p2[7:6], p3[6:0]);
    // prefix + 2 <= L, length + 20 <= L, length + 20 == L: compared with L - 2 and L - 20
    rtp_tcp_fits_reg <= !length_less_2[17] && {1'b0, prefix} <= length_less_2[16:0];
    stun_zero_bits_reg <= p0[7:6] == 2'b00;
    stun_cookie_reg <= stun_cookie;
    stun_classic_type_reg <= stun_classic_type;
    stun_length_fits_reg <= !length_less_20[17] && {1'b0, stun_length} <= length_less_20[16:0];
    stun_length_equal_reg <= !length_less_20[17]
        && {1'b0, stun_length} == length_less_20[16:0];
    bittorrent_tcp_reg <= text == {8'h13, "BitTorrent "};
    bittorrent_text_reg <= text == "BT-SEARCH * " || head == "d1:a" || head == "d1:r"
        || head == "d1:e";
    utp_reg <= p0[3:0] == 4'd1 && p0[7:4] >= 4'd1 && p0[7:4] <= 4'd4 && p1 <= 8'd2;
    utp_ids_reg <= {p2, p3} != 16'd0 && {p4, p5, p6, p7} != 32'd0;
    utp_syn_ok_reg <= p0[7:4] != UTP_SYN || text[31:0] == 32'd0;
    utp_extension_reg <= p1 != 8'd0;
    length_is_20_reg <= length_less_20 == 18'd0;
    hello_smtp_reg <= head_upper == "EHLO" || head_upper == "HELO";
    greeting_reg <= head == "220 ";
    ntp_reg <= p0[5:3] >= 3'd1 && p0[5:3] <= 3'd4 && p0[2:0] != 3'd0;
    connect_reg <= head == "CONN";
    dtls_reg <= p0[7:2] == 6'b000101 && ({p1, p2} == 16'hFEFF || {p1, p2} == 16'hFEFD
        || {p1, p2} == 16'hFEFC || {p1, p2} == 16'h0100);
    dtls_fits_reg <= {1'b0, p11, 8'd13} <= payload_length;
end

// ---- cycle 2: the signatures ----------------------------------------------------

wire stun = (stun_zero_bits_reg && stun_cookie_reg && stun_length_fits_reg)
    || (!stun_cookie_reg && stun_classic_type_reg && stun_length_equal_reg);
wire [14:0] http_words = http_heads_reg & http_tails_reg;
wire options_rtsp = http_words[HTTP_OPTIONS] && rtsp_reg;
wire options_5060 = http_words[HTTP_OPTIONS] && port_5060_reg;
wire connect_brace = http_words[HTTP_CONNECT] && brace_reg;
wire [4:0] http_long_words = {
    http_long_heads_reg[PROP] && http_long_mids_reg[4] && http_long_tails_reg[7],
    http_long_heads_reg[PROP] && http_long_mids_reg[3] && http_long_tails_reg[6],
    http_long_heads_reg[RPC] && http_long_mids_reg[2] && &http_long_tails_reg[5:4],
    http_long_heads_reg[RPC] && http_long_mids_reg[1] && &http_long_tails_reg[3:2],
    http_long_heads_reg[RPC] && http_long_mids_reg[0] && &http_long_tails_reg[1:0]};
wire http_start = |http_words || |http_long_words;
wire sip_start = |sip_words_reg;
wire is_http = tcp_reg && http_start && !options_rtsp && !options_5060 && !connect_brace;
wire is_tls = tcp_reg && tls_reg;
wire is_dns = port_53_reg && ((udp_reg && length_12_reg && dns_udp_reg)
    || (tcp_reg && length_14_reg && dns_tcp_reg));
wire is_ssh = tcp_reg && ssh_reg;
wire is_quic = udp_reg && ((quic_form_reg && (quic_v1_v2_reg || quic_draft_google_reg
    || quic_grease_reg || quic_mvfst_reg)) || quic_public_reg);
wire is_sip = ((udp_reg || (tcp_reg && port_5060_reg)) && sip_start && !ssdp_notify_reg)
    || (port_5060_reg && length_5_reg && hello_reg);
// RTP over TCP (RFC 4571) in one packet; over UDP a candidate the flow table confirms
wire is_rtp = high_ports_reg && tcp_reg && length_14_reg && rtp_tcp_reg && rtp_tcp_fits_reg;
wire is_rtp_candidate = high_ports_reg && udp_reg && length_12_reg && rtp_udp_reg;
// uTP: a packet with no data (ST_DATA proves nothing alone), exactly its header
wire utp = high_ports_reg && utp_reg && utp_ids_reg && utp_syn_ok_reg && !stun
    && (utp_extension_reg ? length_22_64_reg : length_is_20_reg);
wire is_bittorrent = (tcp_reg && bittorrent_tcp_reg) || (udp_reg && (bittorrent_text_reg
    || utp));
wire is_smtp = tcp_reg && (hello_smtp_reg || (greeting_reg && port_mail_reg));
wire is_ntp = udp_reg && port_123_reg && length_48_reg && ntp_reg;
// a record header: L >= 14 (the header and a byte), the length's high byte fits
wire is_dtls = udp_reg && length_14_reg && dtls_reg && dtls_fits_reg;

// bit c: class c's signature matches
reg [12:1] matches_reg = 12'd0;

always @(posedge clk) begin
    matches_reg <= {is_dtls, stun, is_ntp, is_smtp, is_bittorrent, is_rtp, is_sip, is_quic, is_ssh,
                    is_dns, is_tls, is_http};
    rtp_candidate <= is_rtp_candidate;
    connect <= connect_reg;
    other <= length_3_reg && !zeros_reg && greetings_reg == 3'd0;
end

always @* begin
    match = 4'd0;
    for (n = 12; n >= 1; n = n - 1) begin
        if (matches_reg[n]) begin
            match = n[3:0];
        end
    end
end

endmodule

`resetall
