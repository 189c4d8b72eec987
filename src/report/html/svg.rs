//! A finding's subgraph drawn as inline SVG: boxes for the nodes and values, curved edges
//! labelled with the value and its shape, the offending axes marked in the labels and the
//! offending edges drawn in the error colour. Colours and fonts are presentation attributes,
//! so the drawing looks the same where a page's stylesheet is stripped (some notebook views).

use std::fmt::Write as _;

use super::escape::{shorten, text};
use super::graph::{Block, Kind, Label, Subgraph};
use super::layout::{layout, Layout, Sized};

/// Characters a box or label line shows before it is cut (the whole text is its tooltip).
const LINE_CHARS: usize = 36;
/// Characters of one dim a label shows (symbolic dims grow long through a stack of Convs).
const DIM_CHARS: usize = 24;
/// Height of one text line.
const LINE: u32 = 15;
/// Width of `chars` characters of the 12px monospace font, in pixels (7.3 each, rounded up).
fn text_width(chars: usize) -> u32 {
    u32::try_from(chars.saturating_mul(73).div_ceil(10)).unwrap_or(u32::MAX)
}

/// The lines a box shows.
fn lines(block: &Block) -> Vec<String> {
    let mut lines = vec![block.title.clone(), block.name.clone()];
    lines.extend(block.detail.clone());
    lines.iter().map(|l| shorten(l, LINE_CHARS)).collect()
}

/// A label's text, without markup: `m [2, 4, 3]`, `f1[2]=samples/5`, `x ?`.
fn label_plain(label: &Label) -> String {
    let name = shorten(&label.value, LINE_CHARS);
    match (&label.dims, &label.axis_dim) {
        (Some(dims), _) => {
            let dims: Vec<String> = dims.iter().map(|d| shorten(d, DIM_CHARS)).collect();
            format!("{name} [{}]", dims.join(", "))
        }
        (None, Some((Some(axis), dim))) => format!("{name}[{axis}]={}", shorten(dim, DIM_CHARS)),
        (None, Some((None, dim))) => format!("{name} {}", shorten(dim, DIM_CHARS)),
        (None, None) => format!("{name} (rank unknown)"),
    }
}

/// A label's whole text, for its tooltip: nothing cut.
fn label_title(label: &Label) -> String {
    match (&label.dims, &label.axis_dim) {
        (Some(dims), _) => format!("{} [{}]", label.value, dims.join(", ")),
        (None, Some((Some(axis), dim))) => format!("{}[{axis}]={dim}", label.value),
        (None, Some((None, dim))) => format!("{} {dim}", label.value),
        (None, None) => format!("{} (rank unknown)", label.value),
    }
}

/// The label as SVG text content, the marked axes in `<tspan class="axis">`.
fn label_markup(label: &Label) -> String {
    let name = text(&shorten(&label.value, LINE_CHARS));
    let mark = |dim: &str| {
        format!(
            r##"<tspan class="axis" fill="#c62828" font-weight="bold">{}</tspan>"##,
            text(dim)
        )
    };
    match (&label.dims, &label.axis_dim) {
        (Some(dims), _) => {
            let shown: Vec<String> = dims
                .iter()
                .enumerate()
                .map(|(axis, dim)| {
                    let dim = shorten(dim, DIM_CHARS);
                    if label.marked.contains(&axis) {
                        mark(&dim)
                    } else {
                        text(&dim)
                    }
                })
                .collect();
            format!("{name} [{}]", shown.join(", "))
        }
        (None, Some((Some(axis), dim))) => {
            format!("{name}[{axis}]={}", mark(&shorten(dim, DIM_CHARS)))
        }
        (None, Some((None, dim))) => format!("{name} {}", mark(&shorten(dim, DIM_CHARS))),
        (None, None) => format!("{name} (rank unknown)"),
    }
}

/// The drawing as an `<svg>` element; `id` names it in the page (`data-finding`).
pub(super) fn draw(graph: &Subgraph, id: &str) -> String {
    let sizes: Vec<Sized> = graph
        .boxes
        .iter()
        .map(|b| {
            let lines = lines(b);
            let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
            Sized {
                width: text_width(widest) + 16,
                height: LINE * u32::try_from(lines.len()).unwrap_or(3) + 10,
            }
        })
        .collect();
    let edges: Vec<(usize, usize, u32)> = graph
        .edges
        .iter()
        .map(|e| {
            (
                e.from,
                e.to,
                text_width(label_plain(&e.label).chars().count()) + 8,
            )
        })
        .collect();
    let placed = layout(&sizes, &edges, 0);
    let name = graph.boxes.first().map_or("", |b| b.name.as_str());
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="subgraph" data-finding="{id}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="the subgraph of node {}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="12">"#,
        text(name),
        w = placed.width,
        h = placed.height,
    );
    // Edges first, so that boxes sit on top of their ends.
    draw_edges(&mut svg, graph, &placed, &sizes);
    draw_boxes(&mut svg, graph, &placed, &sizes);
    svg.push_str("</svg>");
    svg
}

/// The edges, a producer's label written once when several edges carry the same value from it.
fn draw_edges(svg: &mut String, graph: &Subgraph, placed: &Layout, sizes: &[Sized]) {
    let mut labelled: Vec<(usize, String)> = Vec::new();
    for (i, edge) in graph.edges.iter().enumerate() {
        let (Some(from), Some(to), Some(size_from), Some(size_to)) = (
            placed.places.get(edge.from),
            placed.places.get(edge.to),
            sizes.get(edge.from),
            sizes.get(edge.to),
        ) else {
            continue;
        };
        // Down from the producer's lower left, the label beside the straight part, then a
        // curve to the consumer's top, in-edges spread over its width.
        let x1 = from.x + 12;
        let y1 = from.y + size_from.height;
        let ym = y1 + 22;
        let (k, count) = arrival(graph, placed, i);
        let x2 = to.x + size_to.width * (k + 1) / (count + 1);
        let y2 = to.y;
        let bend = ym + (y2.saturating_sub(ym)) / 2;
        let colour = if edge.offending { "#c62828" } else { "#555" };
        let class = if edge.offending {
            "edge offending"
        } else {
            "edge"
        };
        let _ = write!(
            svg,
            r#"<g class="{class}" data-value="{}"><path d="M{x1} {y1} V{ym} C{x1} {bend} {x2} {bend} {x2} {tip}" fill="none" stroke="{colour}" stroke-width="1.5"/><polygon points="{x2},{y2} {left},{tip} {right},{tip}" fill="{colour}"/>"#,
            text(&edge.label.value),
            tip = y2.saturating_sub(7),
            left = x2.saturating_sub(4),
            right = x2 + 4,
        );
        let plain = label_plain(&edge.label);
        if !labelled.contains(&(edge.from, plain.clone())) {
            let _ = write!(
                svg,
                r##"<text class="label" x="{}" y="{}" fill="#222"><title>{}</title>{}</text>"##,
                x1 + 8,
                y1 + 15,
                text(&label_title(&edge.label)),
                label_markup(&edge.label)
            );
            labelled.push((edge.from, plain));
        }
        svg.push_str("</g>");
    }
}

/// Which of its consumer's in-edges edge `i` is, counted from the left by where their
/// producers sit (so that they do not cross), and how many there are.
fn arrival(graph: &Subgraph, placed: &Layout, i: usize) -> (u32, u32) {
    let Some(to) = graph.edges.get(i).map(|e| e.to) else {
        return (0, 1);
    };
    let mut into: Vec<usize> = (0..graph.edges.len())
        .filter(|&j| graph.edges.get(j).is_some_and(|e| e.to == to))
        .collect();
    into.sort_by_key(|&j| {
        let x = graph
            .edges
            .get(j)
            .and_then(|e| placed.places.get(e.from))
            .map_or(0, |p| p.x);
        (x, j)
    });
    let k = into.iter().position(|&j| j == i).unwrap_or(0);
    (
        u32::try_from(k).unwrap_or(0),
        u32::try_from(into.len()).unwrap_or(1).max(1),
    )
}

/// The boxes, each with its full text as a tooltip.
fn draw_boxes(svg: &mut String, graph: &Subgraph, placed: &Layout, sizes: &[Sized]) {
    for (i, block) in graph.boxes.iter().enumerate() {
        let (Some(place), Some(size)) = (placed.places.get(i), sizes.get(i)) else {
            continue;
        };
        let (class, fill, stroke) = match block.kind {
            Kind::Finding => ("box finding", "#ffebee", "#c62828"),
            Kind::Step => ("box step", "#e3f2fd", "#1565c0"),
            Kind::Source => ("box source", "#f1f8e9", "#558b2f"),
            Kind::Elided => ("box elided", "#fafafa", "#9e9e9e"),
        };
        let dash = if block.kind == Kind::Elided {
            r#" stroke-dasharray="4 3""#
        } else {
            ""
        };
        let _ = write!(
            svg,
            r#"<g class="{class}" data-name="{}"><title>{}</title><rect x="{}" y="{}" width="{}" height="{}" rx="4" fill="{fill}" stroke="{stroke}"{dash}/>"#,
            text(&block.name),
            text(&full_text(block)),
            place.x,
            place.y,
            size.width,
            size.height,
        );
        for (line, content) in lines(block).iter().enumerate() {
            let weight = if line == 0 {
                r#" font-weight="bold""#
            } else {
                ""
            };
            let _ = write!(
                svg,
                r##"<text x="{}" y="{}" fill="#222"{weight}>{}</text>"##,
                place.x + 8,
                place.y + 5 + LINE * (u32::try_from(line).unwrap_or(0) + 1) - 3,
                text(content)
            );
        }
        svg.push_str("</g>");
    }
}

/// A box's whole text, for its tooltip.
fn full_text(block: &Block) -> String {
    let mut all = format!("{} {}", block.title, block.name);
    if let Some(detail) = &block.detail {
        let _ = write!(all, " ({detail})");
    }
    all
}
