//! A real nginx serving a WebDAV folder on 127.0.0.1, for the remote cache's tests:
//! Debian's `nginx` (and `libnginx-mod-http-dav-ext`, loaded for PROPFIND) started with
//! its configuration, pid, logs, temporary files and store all in a temporary folder,
//! and stopped by its pid when dropped. `.ci/run` installs the packages; a machine
//! without them fails the test that needs the server, saying what to install.

use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NGINX: &str = "/usr/sbin/nginx";
const DAV_EXT: &str = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so";

/// A running nginx.
pub struct Nginx {
    folder: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
    /// Directives added to the store's `location` block (fault injection).
    location: String,
    /// Directives added to the `http` block.
    http: String,
}

impl Nginx {
    /// A WebDAV store that takes PUT and serves GET and HEAD.
    pub fn start() -> Self {
        Self::start_with("")
    }

    /// The same with `directives` in the store's `location` block, such as
    /// `return 500;` or `limit_rate 1k;`.
    pub fn start_with(directives: &str) -> Self {
        Self::start_configured(directives, "")
    }

    /// A store that queues requests and answers them at `rate` (nginx's `limit_req`,
    /// such as `5r/s`), so a client's uploads spread out over time.
    pub fn start_throttled(rate: &str) -> Self {
        Self::start_configured(
            "limit_req zone=throttle burst=10000;",
            &format!("limit_req_zone $server_name zone=throttle:1m rate={rate};"),
        )
    }

    fn start_configured(location: &str, http: &str) -> Self {
        assert!(
            Path::new(NGINX).exists() && Path::new(DAV_EXT).exists(),
            "the remote cache tests need Debian's nginx and libnginx-mod-http-dav-ext \
             (scripts/setup installs them)"
        );
        let folder = tempfile::Builder::new()
            .prefix("sylva-nginx-")
            .tempdir()
            .unwrap();
        for sub in ["store", "logs", "tmp"] {
            fs::create_dir_all(folder.path().join(sub)).unwrap();
        }
        let mut nginx = Nginx {
            folder,
            port: free_port(),
            child: None,
            location: location.to_owned(),
            http: http.to_owned(),
        };
        nginx.run();
        nginx
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The folder the server stores objects in (object `a/b` is `store()/a/b`).
    pub fn store(&self) -> PathBuf {
        self.folder.path().join("store")
    }

    /// Every file the store holds, relative to it, sorted.
    pub fn objects(&self) -> Vec<String> {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    out.push(
                        path.strip_prefix(root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.store(), &self.store(), &mut out);
        out.sort();
        out
    }

    /// The server's pid, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Stops the server now (SIGTERM to its master: connections in flight are cut).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: signals our own child process, which has not been reaped yet.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and store, with `directives` (and nothing
    /// else) in the store's `location` block.
    pub fn restart_with(&mut self, directives: &str) {
        self.stop();
        self.location = directives.to_owned();
        self.http.clear();
        self.run();
    }

    fn run(&mut self) {
        let dir = self.folder.path();
        let config = dir.join("nginx.conf");
        fs::write(&config, self.config()).unwrap();
        let child = Command::new(NGINX)
            .args(["-p", dir.to_str().unwrap(), "-c", config.to_str().unwrap()])
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        self.child = Some(child);
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        let started = Instant::now();
        while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err() {
            let child = self.child.as_mut().unwrap();
            if let Some(status) = child.try_wait().unwrap() {
                let mut said = String::new();
                if let Some(mut stderr) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut stderr, &mut said);
                }
                let log = fs::read_to_string(dir.join("logs/error.log")).unwrap_or_default();
                panic!("nginx exited with {status}: {said}{log}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not listen on {address} within 10 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn config(&self) -> String {
        let dir = self.folder.path().display();
        // Workers of a root master run as `nobody`, who cannot enter a 0700 temporary
        // folder: as root they run as root, inside this folder only.
        let user = if unsafe { libc::geteuid() } == 0 {
            "user root;"
        } else {
            ""
        };
        let temp: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .iter()
            .map(|t| format!("    {t}_temp_path {dir}/tmp/{t};\n"))
            .collect();
        format!(
            "load_module {DAV_EXT};
{user}
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/logs/error.log;
events {{ worker_connections 64; }}
http {{
    access_log {dir}/logs/access.log;
    {http}
{temp}    server {{
        listen 127.0.0.1:{port};
        root {dir}/store;
        client_max_body_size 0;
        location / {{
            dav_methods PUT DELETE MKCOL;
            dav_ext_methods PROPFIND OPTIONS;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
            {location}
        }}
    }}
}}
",
            port = self.port,
            location = self.location,
            http = self.http,
        )
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A port nothing listens on now (the kernel's pick, released at once).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
