//! Who is asking: the address of the TCP peer a request came in on, put on every request by
//! the accept loop. The login throttle and the event-stream caps count per client with it.
//! And the address of this machine it came in on, which links made for the client use when
//! depot listens on every address (`Server::base_url`).
//!
//! It is the TCP peer and nothing else: `X-Forwarded-For` and friends are not trusted (any
//! client can send them). Behind a reverse proxy every client is the proxy, so the caps
//! then apply to all clients together; see docs/console.md, "Wrong keys are throttled".

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use warp::Filter;

/// The peer address of the connection a request came in on (a request extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// The connection's own address: the address of this machine the client reached (a request
/// extension; on a wildcard listener, links for the client are made with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrivedOn(pub SocketAddr);

/// What per-client limits count by: an IPv4 address, or the /64 network of an IPv6 one
/// (one host usually holds a whole /64, so counting single IPv6 addresses would let it
/// change address at each attempt). IPv4-mapped IPv6 peers count as their IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientAddr {
    pub fn key(&self) -> ClientKey {
        ClientKey(match self.0.ip().to_canonical() {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        })
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// The client of a request. Every request served by the accept loop carries one; a request
/// made some other way (warp's test requests) counts as the unspecified address.
pub fn client() -> impl Filter<Extract = (ClientAddr,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<ClientAddr>().map(|addr: Option<ClientAddr>| {
        addr.unwrap_or(ClientAddr(SocketAddr::from(([0, 0, 0, 0], 0))))
    })
}

/// The address a request came in on, when the accept loop served it.
pub fn arrived_on()
-> impl Filter<Extract = (Option<SocketAddr>,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<ArrivedOn>().map(|on: Option<ArrivedOn>| on.map(|on| on.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(addr: &str) -> String {
        ClientAddr(addr.parse().unwrap()).key().to_string()
    }

    #[test]
    fn ipv4_counts_by_address_and_ipv6_by_its_64_network() {
        assert_eq!(key("192.0.2.7:4000"), "192.0.2.7");
        assert_eq!(key("[2001:db8:1:2:3:4:5:6]:80"), "2001:db8:1:2::/64");
        assert_eq!(key("[2001:db8:1:2:ffff::1]:81"), "2001:db8:1:2::/64");
        assert_eq!(key("[::ffff:192.0.2.7]:80"), "192.0.2.7");
        assert_ne!(key("192.0.2.7:1"), key("192.0.2.8:1"));
    }
}
