//! The reliability diagram and the risk–coverage curve as PNG images (plotters' bitmap backend,
//! DejaVu Sans from the `dejavu` crate, so nothing is read from the system).

use std::path::Path;

use plotters::prelude::*;

use super::model::calibrate::{Bin, CoveragePoint};
use crate::error::{Error, Result};

const SIZE: (u32, u32) = (720, 540);
const FONT: &str = "sans-serif";

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Registering bundled bytes fails only on a malformed font, which would be a build defect.
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).map_err(|_| ()).expect("the bundled DejaVu Sans parses");
    });
}

fn failed(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(path, std::io::Error::other(e.to_string()))
}

/// The reliability diagram: accuracy against mean confidence per non-empty bin, one series per
/// `(name, bins)`, with the diagonal of perfect calibration.
pub fn reliability_png(path: &Path, title: &str, series: &[(&str, &[Bin])]) -> Result<()> {
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    let draw = || -> std::result::Result<(), Box<dyn std::error::Error + '_>> {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root).caption(title, (FONT, 22)).margin(16).x_label_area_size(44).y_label_area_size(54).build_cartesian_2d(0f64..1f64, 0f64..1f64)?;
        chart.configure_mesh().x_desc("confidence (mean in bin)").y_desc("accuracy").label_style((FONT, 14)).draw()?;
        chart.draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], BLACK.mix(0.5)))?.label("perfect calibration").legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.5)));
        for (k, (name, bins)) in series.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let points: Vec<(f64, f64)> = bins.iter().filter(|b| b.count > 0).map(|b| (b.confidence, b.accuracy)).collect();
            chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?.label(*name).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
        }
        chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.8)).border_style(BLACK).label_font((FONT, 14)).draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| failed(path, e))
}

/// The risk–coverage curve: macro-F1 and accuracy of the verdicts kept against coverage.
pub fn risk_coverage_png(path: &Path, title: &str, curve: &[CoveragePoint]) -> Result<()> {
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    let draw = || -> std::result::Result<(), Box<dyn std::error::Error + '_>> {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root).caption(title, (FONT, 22)).margin(16).x_label_area_size(44).y_label_area_size(54).build_cartesian_2d(0f64..1f64, 0f64..1f64)?;
        chart.configure_mesh().x_desc("coverage (share of claims given a verdict)").y_desc("score of the verdicts kept").label_style((FONT, 14)).draw()?;
        for (k, (name, pick)) in [("macro-F1", (|p: &CoveragePoint| p.scores.macro_f1) as fn(&CoveragePoint) -> f64), ("accuracy", |p: &CoveragePoint| p.scores.accuracy)].into_iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let points: Vec<(f64, f64)> = curve.iter().map(|p| (p.coverage, pick(p))).collect();
            chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?.label(name).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
        }
        chart.configure_series_labels().position(SeriesLabelPosition::LowerLeft).background_style(WHITE.mix(0.8)).border_style(BLACK).label_font((FONT, 14)).draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| failed(path, e))
}
