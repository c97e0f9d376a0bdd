//! SVG figures with plotters: ROC and CROC curves with their references,
//! metric-versus-parameter lines, and grouped bars (a metric by user group).
//!
//! Readability rules applied to every figure: axis labels and a title always; the legend
//! sits in the lower-right corner of ROC-type plots (where curves above the diagonal
//! rarely go) on a translucent background; references are thin and grey so that models
//! stand out; markers show the paper's increment points when given. Each series is exactly
//! one `<polyline>` in the SVG.

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// A model: solid, coloured.
    Model,
    /// A reference curve (omniscient, random): thin and grey.
    Reference,
}

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    /// Legend text (put the AUC in it for curves).
    pub label: String,
    /// The polyline, in order.
    pub points: Vec<[f64; 2]>,
    /// Optional markers (e.g. points at the paper's increments).
    pub markers: Vec<[f64; 2]>,
    /// Optional band `(x, lower, upper)` shaded behind the line in its colour (e.g. a 95%
    /// interval at each point), in increasing `x`.
    pub band: Vec<[f64; 3]>,
    /// Drawing style.
    pub kind: LineKind,
}

/// Where the legend of a line chart sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Corner {
    /// Lower right: where ROC-type curves above the diagonal rarely go.
    LowerRight,
    /// Upper right.
    UpperRight,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// Title above the plot.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// X range.
    pub x_range: (f64, f64),
    /// Y range.
    pub y_range: (f64, f64),
    /// The lines, drawn in order.
    pub series: Vec<Series>,
    /// Where the legend sits.
    pub legend: Corner,
}

/// A plotting failure.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw figure `{title}`: {message}")]
pub struct PlotError {
    /// Title of the figure.
    pub title: String,
    /// What went wrong.
    pub message: String,
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];
const REFERENCE_COLORS: [RGBColor; 3] =
    [RGBColor(90, 90, 90), RGBColor(160, 160, 160), RGBColor(120, 120, 60)];

/// The plotting area of every figure: a Cartesian chart over `f64` ranges.
type Area<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Renders one figure of `size` pixels into an SVG string; `draw` paints on the white
/// root area.
fn render(
    title: &str,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    let result = (|| {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw(&root)?;
        root.present().map_err(|e| e.to_string())
    })();
    result.map_err(|message| PlotError { title: title.to_string(), message })?;
    Ok(svg)
}

/// The chart every figure draws on: title above, room for tick labels and axis titles.
fn area<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<Area<'a, 'b>, String> {
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(60)
        .build_cartesian_2d(x, y)
        .map_err(|e| e.to_string())
}

/// The axes: tick labels, axis titles and a light grid; `extra` adjusts the mesh first.
fn mesh<'a, 'b: 'a, 'c>(
    chart: &'c mut Area<'a, 'b>,
    x_label: &str,
    y_label: &str,
    extra: impl FnOnce(&mut MeshStyle<'a, 'c, RangedCoordf64, RangedCoordf64, SVGBackend<'b>>),
) -> Result<(), String> {
    let mut style = chart.configure_mesh();
    extra(&mut style);
    style
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| e.to_string())
}

/// The legend, on a translucent background with a light border.
fn legend<'a, 'b: 'a>(
    chart: &mut Area<'a, 'b>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .draw()
        .map_err(|e| e.to_string())
}

impl Chart {
    /// A ROC-type chart on the unit square: false-alarm rate against hit rate.
    pub(crate) fn unit_square(title: impl Into<String>, series: Vec<Series>) -> Self {
        Chart {
            title: title.into(),
            x_label: "false-alarm rate (FP / negatives)".to_string(),
            y_label: "hit rate (TP / positives)".to_string(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            series,
            legend: Corner::LowerRight,
        }
    }

    /// A chart of lines against a numeric parameter, axes fitted to the points and bands
    /// (with a margin); the legend goes to the right-hand corner with fewer points near it.
    pub(crate) fn fitted(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        series: Vec<Series>,
    ) -> Self {
        let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p[0]));
        let ys = series.iter().flat_map(|s| {
            s.points.iter().map(|p| p[1]).chain(s.band.iter().flat_map(|b| [b[1], b[2]]))
        });
        let span = |values: &mut dyn Iterator<Item = f64>| {
            values
                .filter(|v| v.is_finite())
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
        };
        let (x0, x1) = span(&mut xs.into_iter());
        let (y0, y1) = span(&mut ys.into_iter());
        let x_pad = if x1 > x0 { (x1 - x0) * 0.03 } else { 0.5 };
        let y_pad = if y1 > y0 { (y1 - y0) * 0.08 } else { 0.05 };
        let (x_range, y_range) = ((x0 - x_pad, x1 + x_pad), (y0 - y_pad, y1 + y_pad));
        // Points in the right third of the plot, above and below its middle.
        let (mut upper, mut lower) = (0usize, 0usize);
        for p in series.iter().flat_map(|s| &s.points) {
            if p[0] >= x_range.0 + (x_range.1 - x_range.0) * 2.0 / 3.0 {
                if p[1] >= (y_range.0 + y_range.1) / 2.0 { upper += 1 } else { lower += 1 }
            }
        }
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_range,
            y_range,
            series,
            legend: if upper < lower { Corner::UpperRight } else { Corner::LowerRight },
        }
    }

    /// Renders the chart as an SVG document.
    ///
    /// # Errors
    /// [`PlotError`] when plotters fails (e.g. an empty or inverted range).
    pub(crate) fn to_svg(&self) -> Result<String, PlotError> {
        render(&self.title, (760, 600), |root| self.draw(root))
    }

    fn draw(&self, root: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let (x0, x1) = self.x_range;
        let (y0, y1) = self.y_range;
        if !(x0 < x1 && y0 < y1) {
            return Err(format!("empty range x {x0}..{x1}, y {y0}..{y1}"));
        }
        let mut chart = area(root, &self.title, x0..x1, y0..y1)?;
        mesh(&mut chart, &self.x_label, &self.y_label, |_| {})?;
        let (mut models, mut references) = (0usize, 0usize);
        let n_models = self.series.iter().filter(|s| s.kind == LineKind::Model).count();
        for series in &self.series {
            let points = series.points.iter().map(|p| (p[0], p[1]));
            let color = match series.kind {
                LineKind::Model => {
                    models += 1;
                    PALETTE[(models - 1) % PALETTE.len()]
                }
                LineKind::Reference => {
                    references += 1;
                    REFERENCE_COLORS[(references - 1) % REFERENCE_COLORS.len()]
                }
            };
            if series.band.len() > 1 {
                // The upper edge left to right, then the lower edge back: one polygon.
                let outline: Vec<(f64, f64)> = series
                    .band
                    .iter()
                    .map(|b| (b[0], b[2]))
                    .chain(series.band.iter().rev().map(|b| (b[0], b[1])))
                    .collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(outline, color.mix(0.18).filled())))
                    .map_err(|e| err(&e))?;
            }
            // One polyline per series (references thin and grey rather than dashed, since
            // plotters draws dashes as separate segments), so a figure holds exactly one
            // path per curve and the legend swatches are rectangles. Earlier models are
            // drawn wider, so a later model on the same curve leaves them visible as a
            // border instead of hiding them.
            let width = match series.kind {
                LineKind::Model => 2 + (n_models - models) as u32,
                LineKind::Reference => 1,
            };
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(width)))
                .map_err(|e| err(&e))?
                .label(&series.label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 2), (x + 22, y + 2)], color.filled())
                });
            if !series.markers.is_empty() {
                // One marker shape per model (circle, triangle, cross, square, in turn),
                // so coinciding curves stay apart at their increments.
                let shape = if series.kind == LineKind::Model { (models - 1) % 4 } else { 0 };
                let at = series.markers.iter().map(|p| (p[0], p[1]));
                let style = color.filled();
                match shape {
                    0 => chart.draw_series(at.map(|p| Circle::new(p, 3, style))),
                    1 => chart.draw_series(at.map(|p| TriangleMarker::new(p, 5, style))),
                    2 => chart.draw_series(at.map(|p| Cross::new(p, 4, color.stroke_width(2)))),
                    _ => {
                        chart.draw_series(at.map(|p| {
                            EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], style)
                        }))
                    }
                }
                .map_err(|e| err(&e))?;
            }
        }
        let corner = match self.legend {
            Corner::LowerRight => SeriesLabelPosition::LowerRight,
            Corner::UpperRight => SeriesLabelPosition::UpperRight,
        };
        legend(&mut chart, corner)
    }
}

/// Grouped bars: one group of bars per category (e.g. a user group), one bar per series
/// (e.g. a model) in each group.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BarChart {
    /// Title above the plot.
    pub title: String,
    /// X axis label (what the categories are).
    pub x_label: String,
    /// Y axis label (the metric).
    pub y_label: String,
    /// Category names, left to right.
    pub categories: Vec<String>,
    /// `(legend label, value per category)`; `None` draws no bar (undefined value).
    pub series: Vec<(String, Vec<Option<f64>>)>,
}

impl BarChart {
    /// Renders the chart as an SVG document; the y axis starts at 0 and leaves head room
    /// above the highest bar for the legend.
    ///
    /// # Errors
    /// [`PlotError`] when there is nothing to draw or plotters fails.
    pub(crate) fn to_svg(&self) -> Result<String, PlotError> {
        render(&self.title, (760, 520), |root| self.draw(root))
    }

    fn draw(&self, root: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let n_categories = self.categories.len();
        let n_series = self.series.len();
        if n_categories == 0 || n_series == 0 {
            return Err("no categories or no series".to_string());
        }
        if let Some((label, _)) = self.series.iter().find(|(_, v)| v.len() != n_categories) {
            return Err(format!("series `{label}` has not one value per category"));
        }
        let top = self
            .series
            .iter()
            .flat_map(|(_, v)| v.iter().flatten())
            .fold(0.0f64, |m, &v| if v.is_finite() { m.max(v) } else { m });
        // Room above the bars for the legend, which sits in the upper right.
        let y_max = if top > 0.0 { top * (1.25 + 0.06 * n_series as f64) } else { 1.0 };
        let mut chart = area(root, &self.title, 0.0..n_categories as f64, 0.0..y_max)?;
        let categories = self.categories.clone();
        // Label only the centre of each category.
        let label = move |x: &f64| {
            let centre = x - x.floor();
            let index = x.floor() as usize;
            if (centre - 0.5).abs() < 1e-6 && index < categories.len() {
                categories[index].clone()
            } else {
                String::new()
            }
        };
        mesh(&mut chart, &self.x_label, &self.y_label, |m| {
            m.disable_x_mesh().x_labels(n_categories * 2 + 1).x_label_formatter(&label);
        })?;
        let width = 0.8 / n_series as f64;
        for (s, (label, values)) in self.series.iter().enumerate() {
            let color = PALETTE[s % PALETTE.len()];
            let bars = values.iter().enumerate().filter_map(move |(c, v)| {
                let v = (*v)?;
                let x0 = c as f64 + 0.1 + s as f64 * width;
                Some(Rectangle::new([(x0, 0.0), (x0 + width * 0.92, v)], color.filled()))
            });
            chart.draw_series(bars).map_err(|e| err(&e))?.label(label).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
            });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}

/// Any figure this module draws.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Figure {
    /// Lines (curves, metric against a parameter).
    Lines(Chart),
    /// Grouped bars.
    Bars(BarChart),
}

impl Figure {
    /// Renders the figure as an SVG document.
    ///
    /// # Errors
    /// As [`Chart::to_svg`] and [`BarChart::to_svg`].
    pub(crate) fn to_svg(&self) -> Result<String, PlotError> {
        match self {
            Figure::Lines(chart) => chart.to_svg(),
            Figure::Bars(chart) => chart.to_svg(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart {
        Chart::unit_square(
            "Figure 3 — CROC, MS Web",
            vec![
                Series {
                    label: "item-pop (AUC 0.912)".into(),
                    points: vec![[0.0, 0.0], [0.1, 0.6], [1.0, 1.0]],
                    markers: vec![[0.1, 0.6]],
                    band: vec![],
                    kind: LineKind::Model,
                },
                Series {
                    label: "random (AUC 0.500)".into(),
                    points: vec![[0.0, 0.0], [1.0, 1.0]],
                    markers: vec![],
                    band: vec![],
                    kind: LineKind::Reference,
                },
            ],
        )
    }

    #[test]
    fn svg_parses_and_has_one_line_per_series() {
        let svg = chart().to_svg().unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        // Each curve is one polyline in its own colour (axes and ticks are black).
        let curve_lines = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .filter(|n| matches!(n.attribute("stroke"), Some("#1F77B4" | "#5A5A5A")))
            .count();
        assert_eq!(curve_lines, 2, "{svg}");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        for needle in
            ["Figure 3 — CROC, MS Web", "item-pop (AUC 0.912)", "hit rate (TP / positives)"]
        {
            assert!(texts.iter().any(|t| t.contains(needle)), "missing {needle:?}");
        }
        assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 1);
    }

    #[test]
    fn bars_draw_one_rectangle_per_defined_value() {
        let bars = BarChart {
            title: "NDCG@10 by profile length".into(),
            x_label: "training events per user".into(),
            y_label: "NDCG@10".into(),
            categories: vec!["1–99".into(), "100–199".into(), "200+".into()],
            series: vec![
                ("item-pop".into(), vec![Some(0.2), Some(0.3), None]),
                ("item-knn".into(), vec![Some(0.25), Some(0.35), Some(0.4)]),
            ],
        };
        let svg = Figure::Bars(bars.clone()).to_svg().unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let filled = |colour: &str| {
            doc.descendants()
                .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(colour))
                .count()
        };
        // Bars plus one legend swatch per series.
        assert_eq!(filled("#1F77B4"), 2 + 1, "{svg}");
        assert_eq!(filled("#D62728"), 3 + 1, "{svg}");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        for needle in ["1–99", "200+", "item-knn", "NDCG@10 by profile length"] {
            assert!(texts.iter().any(|t| t.contains(needle)), "missing {needle:?}");
        }
        let mut ragged = bars;
        ragged.series[0].1.pop();
        assert!(ragged.to_svg().is_err());
    }

    #[test]
    fn bands_are_one_polygon_behind_their_line_and_axes_fit_them() {
        let falling = Series {
            label: "recall".into(),
            points: vec![[1.0, 0.8], [2.0, 0.5], [3.0, 0.2]],
            markers: vec![],
            band: vec![[1.0, 0.7, 0.9], [2.0, 0.4, 0.6], [3.0, 0.1, 0.3]],
            kind: LineKind::Model,
        };
        let chart = Chart::fitted("t", "hidden columns", "recall@10", vec![falling.clone()]);
        // The band is inside the y range, and the lines end low on the right, so the
        // legend goes up.
        assert!(chart.y_range.0 < 0.1 && chart.y_range.1 > 0.9, "{:?}", chart.y_range);
        assert_eq!(chart.legend, Corner::UpperRight);
        let svg = chart.to_svg().unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let polygons = doc.descendants().filter(|n| n.has_tag_name("polygon")).count();
        assert_eq!(polygons, 1, "{svg}");
        let rising = Series { points: vec![[1.0, 0.2], [3.0, 0.8]], band: vec![], ..falling };
        let chart = Chart::fitted("t", "x", "y", vec![rising]);
        assert_eq!(chart.legend, Corner::LowerRight);
        let svg = chart.to_svg().unwrap();
        assert!(!svg.contains("<polygon"), "no band, no polygon");
    }

    #[test]
    fn an_empty_range_is_an_error() {
        let mut c = chart();
        c.x_range = (1.0, 1.0);
        assert!(c.to_svg().is_err());
    }
}
