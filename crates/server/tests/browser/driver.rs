//! Just enough of the WebDriver protocol to drive headless Chromium through chromedriver:
//! sessions, pages, scripts, pointer actions, screenshots and the browser's console log.
//!
//! chromedriver is started on a free loopback port and stopped by its PID when the
//! [`Driver`] is dropped; every request is plain HTTP/1.1 on 127.0.0.1, with a time limit.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// A running chromedriver.
pub(crate) struct Driver {
    child: Child,
    port: u16,
    /// The browser `BITMINES_CHROMIUM` names, if any.
    chromium: Option<String>,
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("no free loopback port");
    listener.local_addr().unwrap().port()
}

/// The variable that decides what a missing browser means: unset (or empty), the browser
/// tests are skipped with a line saying so; `required` (as `.ci/run` sets it), they fail.
pub(crate) const POLICY: &str = "BITMINES_BROWSER_TESTS";

/// Names the chromedriver to run instead of the one on `PATH`.
const CHROMEDRIVER: &str = "BITMINES_CHROMEDRIVER";

/// Names the browser chromedriver drives instead of the one it finds itself (`chromium`).
const CHROMIUM: &str = "BITMINES_CHROMIUM";

const INSTALL: &str = "Chromium and chromedriver are not installed \
                       (apt-get install chromium chromium-driver)";

/// The first of `names` that runs with `--version` and succeeds.
fn which(names: &[String]) -> Option<String> {
    names
        .iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .cloned()
}

/// What a browser test does, given what was found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Run chromedriver from this path, driving this browser (chromedriver's own choice when
    /// `None`).
    Run {
        /// The chromedriver to start.
        chromedriver: String,
        /// The browser named by `BITMINES_CHROMIUM`, if any.
        chromium: Option<String>,
    },
    /// Skip the test, printing this line.
    Skip(String),
    /// Fail the test with this message.
    Fail(String),
}

/// Decides between running, skipping and failing. `chromedriver` and `chromium` are what was
/// found (`None`: missing), `chromium_named` whether `BITMINES_CHROMIUM` chose the browser,
/// and `policy` the value of [`POLICY`].
pub(crate) fn plan(
    chromedriver: Option<String>,
    chromium: Option<String>,
    chromium_named: bool,
    policy: Option<&str>,
) -> Plan {
    let required = match policy.unwrap_or("") {
        "" => false,
        "required" => true,
        other => {
            // A misspelt value must not quietly turn a required run into a skipped one.
            return Plan::Fail(format!(
                "{POLICY}={other:?} is not understood: set it to `required` or leave it unset"
            ));
        }
    };
    match (chromedriver, chromium) {
        (Some(chromedriver), Some(chromium)) => Plan::Run {
            chromedriver,
            chromium: chromium_named.then_some(chromium),
        },
        _ if required => Plan::Fail(format!("{INSTALL}, and {POLICY}=required")),
        _ => Plan::Skip(format!(
            "skipped: {INSTALL}; set {POLICY}=required to make this a failure"
        )),
    }
}

/// The plan for this machine: looks for chromedriver and Chromium (or what
/// `BITMINES_CHROMEDRIVER` and `BITMINES_CHROMIUM` name) and reads [`POLICY`].
fn plan_here() -> Plan {
    let named = |var: &str| std::env::var(var).ok().filter(|v| !v.is_empty());
    let chromedriver = match named(CHROMEDRIVER) {
        Some(path) => vec![path],
        None => vec!["chromedriver".to_string()],
    };
    let chromium_named = named(CHROMIUM);
    let chromium = match &chromium_named {
        Some(path) => vec![path.clone()],
        None => ["chromium", "chromium-browser", "google-chrome"]
            .map(String::from)
            .to_vec(),
    };
    plan(
        which(&chromedriver),
        which(&chromium),
        chromium_named.is_some(),
        std::env::var(POLICY).ok().as_deref(),
    )
}

impl Driver {
    /// Starts chromedriver; or, where Chromium or chromedriver is missing, prints a line
    /// saying the test is skipped and returns `None` (or fails, under
    /// `BITMINES_BROWSER_TESTS=required`).
    pub(crate) fn start() -> Option<Driver> {
        let (exe, chromium) = match plan_here() {
            Plan::Run {
                chromedriver,
                chromium,
            } => (chromedriver, chromium),
            Plan::Skip(line) => {
                // Straight to the process's standard error, past the test harness's capture,
                // so a passing run still shows that these tests did not run.
                let _ = writeln!(std::io::stderr(), "{line}");
                return None;
            }
            Plan::Fail(message) => panic!("{message}"),
        };
        let port = free_port();
        let child = Command::new(exe)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver does not start");
        let driver = Driver {
            child,
            port,
            chromium,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while driver.request("GET", "/status", None).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not answer in 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(driver)
    }

    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let body = body.map(Value::to_string).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(body.as_bytes()))
            .map_err(|e| e.to_string())?;
        let payload = read_response(&mut stream).map_err(|e| format!("{method} {path}: {e}"))?;
        let value: Value = serde_json::from_str(&payload)
            .map_err(|e| format!("{method} {path}: {e}: {payload:.200}"))?;
        let value = value.get("value").cloned().unwrap_or(Value::Null);
        if let Some(error) = value.get("error").and_then(Value::as_str) {
            let message = value.get("message").and_then(Value::as_str).unwrap_or("");
            return Err(format!("{method} {path}: {error}: {message:.600}"));
        }
        Ok(value)
    }

    /// A new browser window of `width` x `height` CSS pixels, with a profile of its own (so
    /// its own localStorage).
    pub(crate) fn session(&self, width: u32, height: u32) -> Session<'_> {
        self.open(width, height, false)
    }

    /// A phone's screen of `width` x `height` CSS pixels (Chromium's device emulation: a touch
    /// screen, two device pixels a CSS pixel, the page laid out as a phone lays it out).
    pub(crate) fn phone(&self, width: u32, height: u32) -> Session<'_> {
        self.open(width, height, true)
    }

    fn open(&self, width: u32, height: u32, phone: bool) -> Session<'_> {
        let mut caps = json!({
            "capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "args": [
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-dev-shm-usage",
                        "--disable-gpu",
                        "--hide-scrollbars",
                        "--no-first-run",
                        "--disable-extensions",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--disable-background-timer-throttling",
                        "--disable-renderer-backgrounding",
                        "--disable-backgrounding-occluded-windows",
                        format!("--window-size={width},{height}"),
                    ],
                },
                "goog:loggingPrefs": {"browser": "ALL"},
            }}
        });
        if let Some(chromium) = &self.chromium {
            caps["capabilities"]["alwaysMatch"]["goog:chromeOptions"]["binary"] = json!(chromium);
        }
        if phone {
            caps["capabilities"]["alwaysMatch"]["goog:chromeOptions"]["mobileEmulation"] = json!({
                "deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0, "touch": true},
            });
        }
        let value = self
            .request("POST", "/session", Some(&caps))
            .unwrap_or_else(|e| panic!("no browser session: {e}"));
        let id = value["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        let session = Session { driver: self, id };
        // The window's inner size is what the page lays out in (a phone's is its screen).
        if !phone {
            session.set_viewport(width, height);
        }
        session
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Stopped by its own PID; chromedriver ends the browsers it started.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one HTTP response's body: chromedriver keeps the connection open, so the length is
/// read from the head.
fn read_response(stream: &mut TcpStream) -> Result<String, String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let head_end = loop {
        let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection closed before an answer".into());
        }
        raw.extend_from_slice(&buf[..n]);
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let length = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
    });
    let chunked = head.contains("transfer-encoding: chunked");
    loop {
        let body = &raw[head_end..];
        let complete = match length {
            Some(len) => body.len() >= len,
            None if chunked => body.windows(5).any(|w| w == b"0\r\n\r\n"),
            None => false,
        };
        if complete {
            break;
        }
        let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&raw[head_end..]).into_owned();
    Ok(if chunked { dechunk(&body) } else { body })
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// One browser window.
pub(crate) struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Session<'_> {
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        self.driver.request(
            method,
            &format!("/session/{}{path}", self.id),
            body.as_ref(),
        )
    }

    /// Sizes the window so that the page itself (the inner window) is `width` x `height`.
    fn set_viewport(&self, width: u32, height: u32) {
        for _ in 0..3 {
            let inner = self.eval("return [innerWidth, innerHeight, outerWidth, outerHeight]");
            let at = |i: usize| inner[i].as_i64().unwrap_or(0);
            if (at(0), at(1)) == (i64::from(width), i64::from(height)) {
                return;
            }
            let _ = self.call(
                "POST",
                "/window/rect",
                Some(json!({
                    "width": i64::from(width) + at(2) - at(0),
                    "height": i64::from(height) + at(3) - at(1),
                })),
            );
        }
    }

    /// Opens `url` and waits for the page to load.
    pub(crate) fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })))
            .unwrap_or_else(|e| panic!("{url}: {e}"));
    }

    /// Reloads the page.
    pub(crate) fn reload(&self) {
        self.call("POST", "/refresh", Some(json!({})))
            .expect("reload");
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value; a
    /// promise is awaited.
    pub(crate) fn eval_with(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
        .unwrap_or_else(|e| panic!("{script:.120}: {e}"))
    }

    /// [`Session::eval_with`] without arguments.
    pub(crate) fn eval(&self, script: &str) -> Value {
        self.eval_with(script, json!([]))
    }

    /// Waits up to `limit` for `script` to return something truthy, and returns it.
    pub(crate) fn wait_for(&self, what: &str, script: &str, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let value = self.eval(script);
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return value;
            }
            assert!(
                Instant::now() < deadline,
                "waited {limit:?} for {what}; the page shows: {}",
                self.eval("return document.body.innerText.slice(0, 600)")
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Clicks with `button` (0 left, 1 middle, 2 right) at each point of the page, in
    /// order, as one sequence of real pointer events.
    pub(crate) fn click_points(&self, points: &[(f64, f64)], button: u32) {
        let mut actions = Vec::new();
        for &(x, y) in points {
            actions.push(
                json!({"type": "pointerMove", "duration": 0, "origin": "viewport",
                "x": x.round() as i64, "y": y.round() as i64}),
            );
            actions.push(json!({"type": "pointerDown", "button": button}));
            actions.push(json!({"type": "pointerUp", "button": button}));
        }
        self.pointer(actions);
    }

    /// Touches a point: a tap, or a press held for `hold`.
    pub(crate) fn touch(&self, x: f64, y: f64, hold: Duration) {
        let actions = vec![
            json!({"type": "pointerMove", "duration": 0, "origin": "viewport",
                "x": x.round() as i64, "y": y.round() as i64}),
            json!({"type": "pointerDown", "button": 0}),
            json!({"type": "pause", "duration": hold.as_millis() as u64}),
            json!({"type": "pointerUp", "button": 0}),
        ];
        self.call(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "finger",
                "parameters": {"pointerType": "touch"}, "actions": actions}]})),
        )
        .expect("touch actions");
        let _ = self.call("DELETE", "/actions", None);
    }

    /// Drags the mouse from one point to another with the left button held.
    pub(crate) fn drag(&self, from: (f64, f64), to: (f64, f64)) {
        let at = |(x, y): (f64, f64), duration: u64| {
            json!({"type": "pointerMove", "duration": duration, "origin": "viewport",
                "x": x.round() as i64, "y": y.round() as i64})
        };
        self.pointer(vec![
            at(from, 0),
            json!({"type": "pointerDown", "button": 0}),
            at(((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0), 100),
            at(to, 100),
            json!({"type": "pointerUp", "button": 0}),
        ]);
    }

    /// Turns the mouse wheel over a point by `dx`, `dy` pixels.
    pub(crate) fn wheel(&self, x: f64, y: f64, dx: i64, dy: i64) {
        self.call(
            "POST",
            "/actions",
            Some(
                json!({"actions": [{"type": "wheel", "id": "wheel", "actions": [
                {"type": "scroll", "x": x.round() as i64, "y": y.round() as i64,
                 "deltaX": dx, "deltaY": dy, "duration": 0, "origin": "viewport"}]}]}),
            ),
        )
        .expect("wheel actions");
        let _ = self.call("DELETE", "/actions", None);
    }

    /// Moves the mouse to a point without clicking.
    pub(crate) fn hover(&self, x: f64, y: f64) {
        self.pointer(vec![
            json!({"type": "pointerMove", "duration": 0, "origin": "viewport",
            "x": x.round() as i64, "y": y.round() as i64}),
        ]);
    }

    fn pointer(&self, actions: Vec<Value>) {
        self.call(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"}, "actions": actions}]})),
        )
        .expect("pointer actions");
        let _ = self.call("DELETE", "/actions", None);
    }

    /// Types keys (WebDriver key codes allowed) into the focused element.
    pub(crate) fn keys(&self, text: &str) {
        let mut actions = Vec::new();
        for ch in text.chars() {
            actions.push(json!({"type": "keyDown", "value": ch.to_string()}));
            actions.push(json!({"type": "keyUp", "value": ch.to_string()}));
        }
        self.call(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        )
        .expect("key actions");
    }

    /// Writes a PNG of the window to `path`.
    pub(crate) fn screenshot(&self, path: &Path) {
        let value = self.call("GET", "/screenshot", None).expect("screenshot");
        let png = base64::engine::general_purpose::STANDARD
            .decode(value.as_str().unwrap_or(""))
            .expect("a base64 screenshot");
        std::fs::write(path, png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    /// The browser console's entries since the last call, as `(level, message)`.
    pub(crate) fn console(&self) -> Vec<(String, String)> {
        let Ok(value) = self.call("POST", "/se/log", Some(json!({"type": "browser"}))) else {
            return Vec::new();
        };
        value
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        (
                            e["level"].as_str().unwrap_or("").to_string(),
                            e["message"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self.call("DELETE", "", None);
    }
}
