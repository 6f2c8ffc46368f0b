//! The remote cache's transport: [`sylva_cache::ObjectStore`] over an HTTP(S) WebDAV
//! server (nginx's `dav_methods PUT`, Apache's mod_dav, a Bazel-style cache server) or
//! an S3-compatible store, through the `object_store` crate.
//!
//! - `http://host:port/some/prefix` and `https://…`: plain GET, HEAD and PUT under the
//!   URL's path. `SYLVA_REMOTE_AUTHORIZATION`, when set, is sent as the
//!   `Authorization` header (`Basic …`, `Bearer …`).
//! - `s3://bucket/some/prefix`: credentials, region and endpoint from the standard
//!   `AWS_*` variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//!   `AWS_ENDPOINT` for MinIO and friends, `AWS_ALLOW_HTTP`).
//!
//! Credentials come only from the environment: a URL with a user or password in it is
//! refused, so no credential ends up in a lockfile, a log or a report. Every request
//! is bounded: a 1.5 s connect timeout, `SYLVA_REMOTE_TIMEOUT` seconds (default 60)
//! per request, one retry within 2 s. A bake that finds the server gone therefore
//! goes on locally within a couple of seconds.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::AmazonS3Builder;
use object_store::http::HttpBuilder;
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, RetryConfig};
use sylva_cache::RemoteError;
use thiserror::Error;

/// The environment variable naming the remote cache when no `--remote` is given.
pub const REMOTE_ENV: &str = "SYLVA_REMOTE_CACHE";
/// The environment variable whose value is sent as the `Authorization` header.
pub const AUTHORIZATION_ENV: &str = "SYLVA_REMOTE_AUTHORIZATION";
/// The environment variable bounding each request, in seconds.
pub const TIMEOUT_ENV: &str = "SYLVA_REMOTE_TIMEOUT";

const CONNECT_TIMEOUT: Duration = Duration::from_millis(1500);
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a remote cache could not be opened (before any request).
#[derive(Debug, Error)]
pub enum OpenError {
    #[error("remote cache `{url}`: {reason}")]
    Url { url: String, reason: String },
    #[error("{variable}: {reason}")]
    Environment {
        variable: &'static str,
        reason: String,
    },
    #[error("remote cache {location}: {reason}")]
    Store { location: String, reason: String },
}

/// A remote store of objects under one prefix.
pub struct RemoteStore {
    store: Arc<dyn object_store::ObjectStore>,
    prefix: String,
    location: String,
    runtime: tokio::runtime::Runtime,
}

/// The remote named by `--remote` when given, else by `SYLVA_REMOTE_CACHE`; `None`
/// when neither names one.
pub fn open_configured(flag: Option<&str>) -> Result<Option<RemoteStore>, OpenError> {
    let from_env = std::env::var(REMOTE_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty());
    match flag.map(str::to_owned).or(from_env) {
        Some(url) => open(&url).map(Some),
        None => Ok(None),
    }
}

/// Opens the store at `url` (`http://`, `https://` or `s3://`). No request is made.
pub fn open(url: &str) -> Result<RemoteStore, OpenError> {
    let url_error = |reason: &str| OpenError::Url {
        url: without_credentials(url),
        reason: reason.to_owned(),
    };
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| url_error("not a URL (http://, https:// or s3://)"))?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority.is_empty() {
        return Err(url_error("it names no host or bucket"));
    }
    if authority.contains('@') {
        return Err(url_error(
            "credentials are never taken from a URL: set SYLVA_REMOTE_AUTHORIZATION \
             (HTTP) or the AWS_* variables (S3) instead",
        ));
    }
    let prefix = path.trim_matches('/').to_owned();
    let options = client_options()?;
    let retry = RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_millis(200),
            base: 2.0,
        },
        max_retries: 1,
        retry_timeout: Duration::from_secs(2),
    };
    let location = format!("{scheme}://{authority}/{prefix}");
    let store_error = |e: object_store::Error| OpenError::Store {
        location: location.clone(),
        reason: e.to_string(),
    };
    let store: Arc<dyn object_store::ObjectStore> = match scheme {
        "http" | "https" => Arc::new(
            HttpBuilder::new()
                .with_url(format!("{scheme}://{authority}"))
                .with_client_options(options.with_allow_http(scheme == "http"))
                .with_retry(retry)
                .build()
                .map_err(store_error)?,
        ),
        "s3" => Arc::new(
            AmazonS3Builder::from_env()
                .with_bucket_name(authority)
                .with_client_options(options)
                .with_retry(retry)
                .build()
                .map_err(store_error)?,
        ),
        _ => return Err(url_error("the scheme is not http, https or s3")),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("sylva-remote")
        .enable_all()
        .build()
        .map_err(|e| OpenError::Store {
            location: location.clone(),
            reason: format!("starting its I/O threads: {e}"),
        })?;
    Ok(RemoteStore {
        store,
        prefix,
        location,
        runtime,
    })
}

/// `url` with any `user:password@` replaced by `…@`, for messages.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest
        .split_once('/')
        .map_or((rest, None), |(a, p)| (a, Some(p)));
    let host = authority
        .rsplit_once('@')
        .map_or(authority.to_owned(), |(_, host)| format!("…@{host}"));
    match path {
        Some(path) => format!("{scheme}://{host}/{path}"),
        None => format!("{scheme}://{host}"),
    }
}

/// Timeouts from the environment, and the authorization header if one is set.
fn client_options() -> Result<ClientOptions, OpenError> {
    let timeout = match std::env::var(TIMEOUT_ENV) {
        Ok(text) => match text.trim().parse::<f64>() {
            Ok(seconds) if seconds > 0.0 && seconds.is_finite() => Duration::from_secs_f64(seconds),
            _ => {
                return Err(OpenError::Environment {
                    variable: TIMEOUT_ENV,
                    reason: format!("`{text}` is not a positive number of seconds"),
                })
            }
        },
        Err(_) => DEFAULT_TIMEOUT,
    };
    let mut options = ClientOptions::new()
        .with_connect_timeout(CONNECT_TIMEOUT.min(timeout))
        .with_timeout(timeout);
    if let Ok(value) = std::env::var(AUTHORIZATION_ENV) {
        let mut header =
            http::HeaderValue::from_str(&value).map_err(|_| OpenError::Environment {
                variable: AUTHORIZATION_ENV,
                reason: "not a valid header value".into(),
            })?;
        header.set_sensitive(true);
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, header);
        options = options.with_default_headers(headers);
    }
    Ok(options)
}

impl RemoteStore {
    fn object(&self, path: &str) -> ObjectPath {
        if self.prefix.is_empty() {
            ObjectPath::from(path)
        } else {
            ObjectPath::from(format!("{}/{path}", self.prefix))
        }
    }

    fn error(&self, path: &str, error: object_store::Error) -> RemoteError {
        RemoteError {
            location: format!("{}/{path}", self.location.trim_end_matches('/')),
            reason: error.to_string(),
        }
    }
}

impl sylva_cache::ObjectStore for RemoteStore {
    fn get(&self, path: &str) -> Result<Option<Vec<u8>>, RemoteError> {
        let object = self.object(path);
        let result = self.runtime.block_on(async {
            let answer = self.store.get(&object).await?;
            answer.bytes().await
        });
        match result {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(path, e)),
        }
    }

    fn exists(&self, path: &str) -> Result<bool, RemoteError> {
        let object = self.object(path);
        match self.runtime.block_on(self.store.head(&object)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.error(path, e)),
        }
    }

    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), RemoteError> {
        let object = self.object(path);
        let body = bytes::Bytes::copy_from_slice(bytes);
        self.runtime
            .block_on(self.store.put(&object, body))
            .map(|_| ())
            .map_err(|e| self.error(path, e))
    }

    fn describe(&self) -> String {
        self.location.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_with_credentials_or_unknown_schemes_are_refused() {
        for (url, says) in [
            ("http://user:secret@127.0.0.1:9/c", "credentials"),
            ("ftp://host/c", "scheme"),
            ("127.0.0.1:8080", "not a URL"),
            ("http:///c", "no host"),
        ] {
            let error = open(url).err().expect(url).to_string();
            assert!(error.contains(says), "{url}: {error}");
            assert!(!error.contains("secret"), "{error}");
        }
    }

    #[test]
    fn a_server_that_is_down_is_given_up_on_within_two_seconds() {
        use sylva_cache::ObjectStore;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let store = open(&format!("http://127.0.0.1:{port}/c")).unwrap();
        let started = std::time::Instant::now();
        let error = store.get("sylva/v1/ac/00").unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            error.location,
            format!("http://127.0.0.1:{port}/c/sylva/v1/ac/00")
        );
    }

    #[test]
    fn the_prefix_is_the_urls_path() {
        let store = open("http://127.0.0.1:9/team/cache/").unwrap();
        assert_eq!(
            store.object("sylva/v1/ac/00").as_ref(),
            "team/cache/sylva/v1/ac/00"
        );
        assert_eq!(store.location, "http://127.0.0.1:9/team/cache");
        let root = open("http://127.0.0.1:9").unwrap();
        assert_eq!(root.object("a/b").as_ref(), "a/b");
    }
}
