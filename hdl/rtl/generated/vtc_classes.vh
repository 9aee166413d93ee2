// Generated from nova_fpga/catalogue/modules/vtc.toml by hdl/generate.py: do not edit.
// Module vtc: its class numbers and port guesses, included inside the module.
/* verilator lint_off UNUSEDPARAM */
// class numbers
localparam CLASS_UNKNOWN = 0;
localparam CLASS_HTTP = 1;
localparam CLASS_TLS = 2;
localparam CLASS_DNS = 3;
localparam CLASS_SSH = 4;
localparam CLASS_QUIC = 5;
localparam CLASS_SIP = 6;
localparam CLASS_RTP = 7;
localparam CLASS_BITTORRENT = 8;
localparam CLASS_SMTP = 9;
localparam CLASS_NTP = 10;
localparam CLASS_STUN = 11;
localparam CLASS_DTLS = 12;
// port guesses, lowest class number first (the first entry whose
// transport and port match wins): entry i in bits [16i+15:16i]
// of PORT_GUESS_PORTS, [i] of PORT_GUESS_TCP (1 TCP, 0 UDP),
// [4i+3:4i] of PORT_GUESS_CLASSES
//   http tcp 80
//   http tcp 8080
//   tls tcp 443
//   tls tcp 465
//   tls tcp 853
//   tls tcp 993
//   tls tcp 995
//   dns tcp 53
//   dns udp 53
//   ssh tcp 22
//   quic udp 443
//   sip tcp 5060
//   sip udp 5060
//   bittorrent tcp 6881
//   bittorrent udp 6771
//   bittorrent udp 6881
//   smtp tcp 25
//   smtp tcp 587
//   ntp udp 123
//   stun tcp 3478
//   stun udp 3478
localparam PORT_GUESSES = 21;
localparam [16*PORT_GUESSES-1:0] PORT_GUESS_PORTS = {16'd3478, 16'd3478, 16'd123, 16'd587, 16'd25, 16'd6881, 16'd6771, 16'd6881, 16'd5060, 16'd5060, 16'd443, 16'd22, 16'd53, 16'd53, 16'd995, 16'd993, 16'd853, 16'd465, 16'd443, 16'd8080, 16'd80};
localparam [PORT_GUESSES-1:0] PORT_GUESS_TCP = {1'd0, 1'd1, 1'd0, 1'd1, 1'd1, 1'd0, 1'd0, 1'd1, 1'd0, 1'd1, 1'd0, 1'd1, 1'd0, 1'd1, 1'd1, 1'd1, 1'd1, 1'd1, 1'd1, 1'd1, 1'd1};
localparam [4*PORT_GUESSES-1:0] PORT_GUESS_CLASSES = {4'd11, 4'd11, 4'd10, 4'd9, 4'd9, 4'd8, 4'd8, 4'd8, 4'd6, 4'd6, 4'd5, 4'd4, 4'd3, 4'd3, 4'd2, 4'd2, 4'd2, 4'd2, 4'd2, 4'd1, 4'd1};
/* verilator lint_on UNUSEDPARAM */
