LISTEN channel_:client_id;
