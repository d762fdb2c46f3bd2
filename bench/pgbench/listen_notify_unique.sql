LISTEN channel_:client_id;
NOTIFY channel_:client_id;
