LISTEN channel_common;
