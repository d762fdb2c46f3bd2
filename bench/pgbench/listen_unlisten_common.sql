LISTEN channel_common;
UNLISTEN channel_common;
