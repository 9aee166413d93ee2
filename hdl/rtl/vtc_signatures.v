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
 * Looks at the first 12 payload bytes, the L4 protocol, the ports and two
 * payload-length thresholds; when several classes match, the lowest class
 * number wins.  Which signatures match is registered and the lowest class
 * picked the cycle after (so that each half fits a 156.25 MHz cycle): match
 * is one cycle behind the inputs.  The rules were chosen against nDPI's verdicts
 * on the shared captures and are listed in hdl/README.md (vTC section) and
 * hdl/tests/vtc_model.py (signature()).  Class numbers: 1 HTTP, 2 TLS,
 * 3 DNS, 4 SSH, 5 QUIC, 6 SIP, 7 RTP, 8 BitTorrent, 9 SMTP, 10 NTP; 0 none.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_signatures
(
    input  wire         clk,

    // payload byte n in bits [8n+7:8n]
    input  wire [95:0]  payload,
    input  wire         tcp,
    input  wire         udp,
    input  wire [15:0]  sport,
    input  wire [15:0]  dport,
    // the payload is at least 12 / 48 bytes long
    input  wire         length_12,
    input  wire         length_48,
    output reg  [3:0]   match
);

reg [95:0] text;  // the payload with byte 0 in the top bits, as string literals are
integer n;

always @* begin
    for (n = 0; n < 12; n = n + 1) begin
        text[95-8*n -: 8] = payload[8*n +: 8];
    end
end

wire [7:0]  p0 = text[95:88];
wire [7:0]  p1 = text[87:80];
wire [7:0]  p2 = text[79:72];
wire [7:0]  p3 = text[71:64];
wire [7:0]  p4 = text[63:56];
wire [7:0]  p5 = text[55:48];
wire [7:0]  p9 = text[23:16];
wire [7:0]  p10 = text[15:8];
wire [31:0] head = text[95:64];
wire [31:0] head_upper = head & 32'hDFDFDFDF;

function has_port(input [15:0] source, input [15:0] destination, input [15:0] number);
    has_port = source == number || destination == number;
endfunction

wire port_25 = has_port(sport, dport, 16'd25);
wire port_53 = has_port(sport, dport, 16'd53);
wire port_123 = has_port(sport, dport, 16'd123);
wire port_443 = has_port(sport, dport, 16'd443);
wire port_587 = has_port(sport, dport, 16'd587);
wire port_5060 = has_port(sport, dport, 16'd5060);

wire http_start = head == "GET " || head == "POST" || head == "HEAD" || head == "PUT "
    || head == "HTTP" || head == "DELE" || head == "OPTI" || head == "CONN" || head == "PATC";
wire sip_start = head == "SIP/" || head == "INVI" || head == "REGI" || head == "ACK "
    || head == "BYE " || head == "CANC" || head == "OPTI" || head == "NOTI" || head == "SUBS"
    || head == "MESS" || head == "INFO" || head == "PRAC" || head == "REFE" || head == "UPDA"
    || head == "PUBL";
wire [6:0] rtp_type = p1[6:0];

wire is_http = tcp && !port_5060 && http_start;
wire is_tls = tcp && ((p0 >= 8'h14 && p0 <= 8'h17 && p1 == 8'h03 && p2 <= 8'h04)
    || (p0[7] && p2 == 8'h01 && p3 == 8'h03 && p4 <= 8'h04));
wire is_dns = udp && port_53 && length_12 && p2[6:3] == 4'd0 && p4 == 8'd0 && p5 == 8'd1;
wire is_ssh = tcp && head == "SSH-";
wire is_quic = udp && ((p0[3] && p9 == "Q" && p10 == "0")
    || (p0[7:6] == 2'b11 && {p1, p2, p3, p4} == 32'd1) || port_443);
wire is_sip = (udp || (tcp && port_5060)) && sip_start;
wire is_rtp = udp && length_12 && p0[7:6] == 2'b10 && (rtp_type <= 7'd34 || rtp_type >= 7'd96)
    && sport >= 16'd1024 && dport >= 16'd1024;
wire is_bittorrent = tcp && text == {8'h13, "BitTorrent "};
wire is_smtp = tcp && (head_upper == "EHLO" || head_upper == "HELO"
    || (head == "220 " && (port_25 || port_587)));
wire is_ntp = udp && port_123 && length_48 && p0[5:3] >= 3'd1 && p0[5:3] <= 3'd4
    && p0[2:0] != 3'd0;

// bit c: class c's signature matches
reg [10:1] matches_reg = 10'd0;

always @(posedge clk) begin
    matches_reg <= {is_ntp, is_smtp, is_bittorrent, is_rtp, is_sip, is_quic, is_ssh, is_dns,
                    is_tls, is_http};
end

always @* begin
    match = 4'd0;
    for (n = 10; n >= 1; n = n - 1) begin
        if (matches_reg[n]) begin
            match = n[3:0];
        end
    end
end

endmodule

`resetall
