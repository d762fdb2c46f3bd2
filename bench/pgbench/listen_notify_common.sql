LISTEN channel_common;
NOTIFY channel_common;
