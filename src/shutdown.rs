//! One shutdown signal shared by the server and every background task.

use tokio::sync::watch;

/// Cloneable; `trigger` once, and every `wait` returns.
#[derive(Clone)]
pub struct Shutdown {
    tx: watch::Sender<bool>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown {
            tx: watch::channel(false).0,
        }
    }
}

impl Shutdown {
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub fn is_triggered(&self) -> bool {
        *self.tx.borrow()
    }

    /// Resolves once `trigger` has been called (at once if it already was).
    pub async fn wait(&self) {
        let mut rx = self.tx.subscribe();
        // An error means the sender is gone, which cannot happen while `self` lives.
        let _ = rx.wait_for(|stopped| *stopped).await;
    }

    /// Triggers on SIGINT or SIGTERM.
    pub fn on_signals(&self) {
        let this = self.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("shutdown signal received; finishing in-flight requests");
            this.trigger();
        });
    }
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    let _ = tokio::signal::ctrl_c().await;
}
