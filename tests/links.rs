//! The repository's Markdown files read right where they are rendered. Every link between
//! them leads somewhere: each relative link names a file or folder that exists, and each
//! `#anchor` (in the same file or another) names a heading there, by GitHub's rule for
//! heading anchors. Links with a scheme (`https:`, `mailto:`) are left alone, so the check
//! runs offline. And no Rust example hides a line from rustdoc (`# Ok::<...>(())`), since a
//! page that is not rustdoc's shows that line as written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// Folders that hold no Markdown of bitmines' own: build outputs, the git store, packages.
const SKIPPED: [&str; 3] = ["target", ".git", "node_modules"];

/// Every `*.md` file under `root`, outside [`SKIPPED`] folders, sorted.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display()));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !SKIPPED.contains(&name) {
                    folders.push(path);
                }
            } else if name.ends_with(".md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The lines of `text` outside fenced code blocks, so that an example that merely looks like
/// a heading is not taken for one.
fn prose(text: &str) -> Vec<&str> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => lines.push(line),
            _ => {}
        }
    }
    lines
}

/// `line` with the inside of every `` `code` `` span removed, so that an example that merely
/// looks like a link is not taken for one.
fn blank_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for ch in line.chars() {
        if ch == '`' {
            in_code = !in_code;
            out.push(ch);
        } else if !in_code {
            out.push(ch);
        }
    }
    out
}

/// The destinations of the inline links and images (`[text](dest)`, `![alt](dest)`) and of
/// the link reference definitions (`[label]: dest`) in `line`.
fn destinations(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(end) = trimmed.find("]:")
    {
        let rest = trimmed[end + 2..].trim();
        if let Some(dest) = rest.split_whitespace().next() {
            found.push(dest.trim_matches(['<', '>']).to_string());
        }
    }
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        // The destination runs to the matching parenthesis; a title follows a space.
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, ch) in after.char_indices() {
            match ch {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inside = after[..end].trim();
        let dest = inside.split_whitespace().next().unwrap_or("");
        found.push(dest.trim_matches(['<', '>']).to_string());
        rest = &after[end.min(after.len())..];
    }
    found
}

/// A heading's anchor as GitHub makes it: the text without its markup, lower case, every
/// character dropped but letters, digits, spaces, `-` and `_`, and each space a `-`.
fn slug(heading: &str) -> String {
    // A link in a heading contributes its text only.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|i| open + i) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|i| close + i) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file: one per heading (a repeated one gets `-1`, `-2`, ...
/// as on GitHub) and one per HTML `id="..."` or `name="..."`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose(text) {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with([' ', '\t']) {
            let base = slug(trimmed[hashes..].trim().trim_end_matches('#'));
            let count = seen.entry(base.clone()).or_insert(0);
            out.insert(match *count {
                0 => base.clone(),
                n => format!("{base}-{n}"),
            });
            *count += 1;
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(attr) {
                let value = &rest[at + attr.len()..];
                let end = value.find('"').unwrap_or(value.len());
                out.insert(value[..end].to_string());
                rest = &value[end..];
            }
        }
    }
    out
}

/// `path` with `.` and `..` resolved in place, without asking the file system.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Every broken link in the Markdown files under `root`, one line each: the file, the line
/// number, the link and what is wrong with it.
fn broken_links(root: &Path) -> Vec<String> {
    let files = markdown_files(root);
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        texts.insert(normal(file), text);
    }
    let mut broken = Vec::new();
    for (file, text) in &texts {
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let folder = file.parent().unwrap_or(root);
        // Line numbers count every line, code blocks included; `prose` keeps code out.
        let mut fence: Option<&str> = None;
        for (number, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            match (fence, marker) {
                (None, Some(m)) => {
                    fence = Some(m);
                    continue;
                }
                (Some(open), Some(m)) if open == m => {
                    fence = None;
                    continue;
                }
                (Some(_), _) => continue,
                (None, None) => {}
            }
            for dest in destinations(&blank_code_spans(line)) {
                if dest.is_empty() || dest.contains(':') {
                    continue;
                }
                let (path, anchor) = match dest.split_once('#') {
                    Some((path, anchor)) => (path, Some(anchor)),
                    None => (dest.as_str(), None),
                };
                let target = match path {
                    "" => file.clone(),
                    // A leading `/` is the repository's root, as on GitHub.
                    _ if path.starts_with('/') => normal(&root.join(&path[1..])),
                    _ => normal(&folder.join(path)),
                };
                let at = format!("{shown}:{}: ({dest})", number + 1);
                if !target.exists() {
                    broken.push(format!("{at}: no such file"));
                    continue;
                }
                let Some(anchor) = anchor.filter(|a| !a.is_empty()) else {
                    continue;
                };
                match texts.get(&target) {
                    Some(text) if !anchors(text).contains(anchor) => {
                        broken.push(format!("{at}: no heading #{anchor} there"));
                    }
                    Some(_) => {}
                    None if target.extension().is_some_and(|e| e == "md") => {
                        broken.push(format!("{at}: the file was not checked"));
                    }
                    // An anchor into a source file (a line, say) is the viewer's business.
                    None => {}
                }
            }
        }
    }
    broken
}

#[test]
fn every_markdown_link_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = markdown_files(root);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")),
        "the README is among the files checked"
    );
    let broken = broken_links(root);
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

/// The checker itself finds a missing file, a missing anchor in the same file and in
/// another, and passes good links, links into code and links with a scheme.
#[test]
fn the_checker_finds_broken_links() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(
        root.join("README.md"),
        "# The Title\n\
         \n\
         ## Run it: `stress`, fast!\n\
         ## Run it: `stress`, fast!\n\
         \n\
         Good: [a](docs/guide.md), [b](docs/guide.md#the-guide), [c](#the-title),\n\
         [d](#run-it-stress-fast), [e](#run-it-stress-fast-1), [f](https://example.com/x#y),\n\
         [g](docs/), [h](</docs/guide.md#a-b_c>), `[i](missing.md)`.\n\
         \n\
         ```text\n\
         [j](missing-too.md)\n\
         ```\n\
         \n\
         Bad: [k](docs/missing.md), [l](#no-such-heading), [m](docs/guide.md#nowhere),\n\
         [n](#run-it-stress-fast-2).\n\
         \n\
         [o]: docs/gone.md\n",
    )
    .unwrap();
    std::fs::write(
        root.join("docs/guide.md"),
        "# The guide\n\n### A-B_C\n\nBack: [up](../README.md#the-title)\n",
    )
    .unwrap();
    // Markdown under target/ is a build output and never checked.
    std::fs::write(root.join("target/out.md"), "[x](nowhere.md)\n").unwrap();
    let broken = broken_links(root);
    assert_eq!(
        broken,
        [
            "README.md:14: (docs/missing.md): no such file",
            "README.md:14: (#no-such-heading): no heading #no-such-heading there",
            "README.md:14: (docs/guide.md#nowhere): no heading #nowhere there",
            "README.md:15: (#run-it-stress-fast-2): no heading #run-it-stress-fast-2 there",
            "README.md:17: (docs/gone.md): no such file",
        ]
    );
}

/// The lines of the Rust examples in `text` that rustdoc would hide (`# ` or a lone `#`),
/// as `line number: text`.
fn hidden_lines(text: &str) -> Vec<String> {
    let mut in_rust = false;
    let mut hidden = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_rust = !in_rust && info.split(',').next().is_some_and(|l| l.trim() == "rust");
        } else if in_rust && (trimmed == "#" || trimmed.starts_with("# ")) {
            hidden.push(format!("{}: {line}", number + 1));
        }
    }
    hidden
}

#[test]
fn no_rust_example_hides_a_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for file in markdown_files(root) {
        let text = std::fs::read_to_string(&file).expect("a Markdown file");
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        found.extend(
            hidden_lines(&text)
                .into_iter()
                .map(|l| format!("{shown}:{l}")),
        );
    }
    assert!(
        found.is_empty(),
        "lines a rendered page would show (write the example as a whole `fn main`):\n{}",
        found.join("\n")
    );
    // The check itself: a hidden line in a Rust block is found, a shell comment is not.
    let sample = "```rust\nlet x = 1;\n# Ok::<(), E>(())\n```\n```sh\n# a comment\n```\n";
    assert_eq!(hidden_lines(sample), ["3: # Ok::<(), E>(())"]);
}
