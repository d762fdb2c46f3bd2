//! The listener: accepts connections and spawns one session task per connection.
//!
//! The runtime is tokio's multi-threaded scheduler with one worker per core; sessions are tasks,
//! not threads, so an idle connection costs a task and a socket registration, not a stack. The
//! accept loop never blocks on a session: admission control (max_connections) happens inside
//! the session task, which answers a refused client with PostgreSQL's FATAL 53300.

use std::sync::Arc;

use tokio::net::TcpListener;

use crate::config::Config;
use crate::instance::Instance;

/// A running server: its instance and the addresses it listens on.
pub struct Server {
    pub instance: Arc<Instance>,
    listeners: Vec<TcpListener>,
}

impl Server {
    pub async fn bind(config: Config) -> std::io::Result<Server> {
        let mut listeners = Vec::new();
        for addr in &config.listen {
            listeners.push(TcpListener::bind((*addr, config.port)).await?);
        }
        Ok(Server {
            instance: Instance::new(config),
            listeners,
        })
    }

    pub fn local_addrs(&self) -> Vec<std::net::SocketAddr> {
        self.listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .collect()
    }

    /// Accepts connections until `shutdown` resolves, then tells every session to terminate
    /// and waits (bounded) for them to finish.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        let instance = self.instance.clone();
        let spinner = {
            let instance = instance.clone();
            tokio::spawn(async move { instance.spinner.run().await })
        };
        let mut accept_tasks = Vec::new();
        for listener in self.listeners {
            let instance = instance.clone();
            accept_tasks.push(tokio::spawn(async move {
                loop {
                    match listener.accept().await {
                        Ok((stream, addr)) => {
                            if instance
                                .shutting_down
                                .load(std::sync::atomic::Ordering::SeqCst)
                            {
                                continue;
                            }
                            let inst = instance.clone();
                            tokio::spawn(crate::session::serve(inst, stream, addr));
                        }
                        Err(e) => {
                            // Out of file descriptors and similar: back off briefly, keep serving.
                            tracing::warn!("accept failed: {e}");
                            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                        }
                    }
                }
            }));
        }
        shutdown.await;
        tracing::info!("shutting down");
        instance.begin_shutdown();
        spinner.abort();
        for t in &accept_tasks {
            t.abort();
        }
        // Sessions send FATAL 57P01 and close; give them a moment.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while instance.connection_count() > 0 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
