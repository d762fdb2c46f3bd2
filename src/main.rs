use clap::Parser;
use threadgres::config::{Args, Config};
use threadgres::runtime::server::Server;

fn main() {
    let args = Args::parse();
    let mut config = match Config::from_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("threadgres: {e}");
            std::process::exit(2);
        }
    };
    let filter = tracing_subscriber::EnvFilter::try_new(format!("threadgres={}", config.log_level))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("threadgres=info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    // The data directory, the TLS certificate and the host rules before listening: a server
    // that cannot read its key or its rules must not start (as PostgreSQL's postmaster).
    let prepared = config
        .load_hba()
        .and_then(|()| config.create_data_dir())
        .and_then(|()| threadgres::tls::load(&config));
    match prepared {
        Ok(tls) => config.tls = tls,
        Err(e) => {
            eprintln!("threadgres: {e}");
            std::process::exit(2);
        }
    }
    // This thread only accepts connections and waits for signals; sessions run on the shards
    // that `Server::bind` starts.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // The data directory is locked and read back before the server listens: no session ever
    // sees a half-restored instance.
    // Restoring rebuilds expression indexes, which the executor evaluates.
    threadgres::sql::exec::index_keys::register();
    let instance = match threadgres::instance::Instance::open(config.clone()) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("threadgres: FATAL:  {e}");
            std::process::exit(1);
        }
    };
    let stopped = runtime.block_on(async move {
        let server = match Server::bind_instance(instance).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("threadgres: could not listen on port {}: {e}", config.port);
                std::process::exit(1);
            }
        };
        for addr in server.local_addrs() {
            println!(
                "threadgres {} listening on {addr}; connect with: psql -h {} -p {} -U postgres",
                env!("CARGO_PKG_VERSION"),
                addr.ip(),
                addr.port()
            );
        }
        if config.hba_file.is_none()
            && config.password.is_none()
            && server.local_addrs().iter().any(|a| !a.ip().is_loopback())
        {
            tracing::warn!(
                "listening beyond loopback without --password or --hba-file: the default host \
                 rules admit only clients on 127.0.0.1 and ::1"
            );
        }
        // SIGHUP reads the host rules again, as PostgreSQL reloads pg_hba.conf.
        let instance = server.instance.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let Ok(mut hup) = signal(SignalKind::hangup()) else {
                return;
            };
            while hup.recv().await.is_some() {
                tracing::info!("received SIGHUP, reloading configuration files");
                instance.hba.reload();
            }
        });
        let instance = server.instance.clone();
        let stopped = server.run(shutdown_signal()).await;
        // Sessions are gone: the shutdown checkpoint, then the data directory is released.
        if let Err(e) = instance.shutdown_checkpoint() {
            tracing::error!("shutdown checkpoint failed: {e}");
        }
        stopped
    });
    // A lost shard is a fault: a non-zero status lets a supervisor restart the server.
    if let threadgres::runtime::server::Stopped::ShardLost(_) = stopped {
        std::process::exit(1);
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
