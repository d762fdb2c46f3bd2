LISTEN channel_:client_id;
UNLISTEN channel_:client_id;
