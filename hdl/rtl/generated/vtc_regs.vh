// Generated from nova_fpga/catalogue/modules/vtc.toml by hdl/generate.py: do not edit.
// Module vtc: register offsets (bytes) and field bit positions, included
// inside the module (the offsets are AXIL_ADDR_WIDTH bits wide).
/* verilator lint_off UNUSEDPARAM */
localparam [AXIL_ADDR_WIDTH-1:0]
    REG_FLOW_TABLE_DEPTH       = 'h020,
    REG_INSPECT_PACKETS        = 'h024,
    REG_FLOW_TIMEOUT           = 'h028,
    REG_TIMESTAMP              = 'h02C,
    REG_POLICY                 = 'h040,
    REG_CLASS_PACKETS          = 'h080,
    REG_CLASS_BYTES            = 'h100,
    REG_FLOWS_SEEN             = 'h180,
    REG_FLOWS_CLASSIFIED       = 'h184,
    REG_FLOW_OCCUPANCY         = 'h188,
    REG_FLOW_INSERTIONS        = 'h18C,
    REG_FLOW_EVICTIONS         = 'h190,
    REG_FLOW_FAILED_INSERTIONS = 'h194,
    REG_UNPARSED_FRAMES        = 'h198,
    REG_OVERSIZE_FRAMES        = 'h19C,
    REG_FRAGMENT_FRAMES_LO     = 'h1A0,
    REG_FRAGMENT_FRAMES_HI     = 'h1A4,
    REG_FRAGMENT_BYTES_LO      = 'h1A8,
    REG_FRAGMENT_BYTES_HI      = 'h1AC,
    REG_FLOWS_GUESSED          = 'h1B0,
    REG_FLOWS_REFINED          = 'h1B4,
    REG_FLOWS_NAMED            = 'h1B8,
    REG_NAMES_SKIPPED          = 'h1BC,
    REG_CLASS_FLOWS            = 'h1C0,
    REG_CLASS_GUESSES          = 'h200,
    REG_NAME_TABLE             = 'h240,
    REG_NAME_TABLE_DATA        = 'h244,
    REG_APP_POLICY             = 'h300,
    REG_APP_FLOWS              = 'h400,
    REG_APP_PACKETS            = 'h600,
    REG_APP_BYTES              = 'h800;
localparam STATUS_TABLE_CLEARING = 2;
localparam POLICY_ENABLE = 7;
localparam POLICY_DSCP = 0;
localparam POLICY_DSCP_WIDTH = 6;
localparam NAME_TABLE_NAMES_ON = 31;
localparam NAME_TABLE_ADDR = 0;
localparam NAME_TABLE_ADDR_WIDTH = 12;
localparam APP_POLICY_ENABLE = 7;
localparam APP_POLICY_DECIDES = 6;
localparam APP_POLICY_DSCP = 0;
localparam APP_POLICY_DSCP_WIDTH = 6;
// classes: unknown, http, tls, dns, ssh, quic, sip, rtp, bittorrent, smtp, ntp, stun, dtls
localparam CLASSES = 13;
// applications: none, youtube, netflix, google, googleservices, facebook, instagram, whatsapp, facebookmessenger, twitter, amazon, amazonaws, amazonvideo, microsoft, microsoft365, teams, skype_teams, apple, appleicloud, appleitunes, applepush, zoom, spotify, twitch, telegram, tiktok, dropbox, steam, cloudflare, snapchat, pluralsight, dazn, wikipedia, googlemeet, googlechat, salesforce, zattoo, ntop
localparam APPLICATIONS = 38;
/* verilator lint_on UNUSEDPARAM */
