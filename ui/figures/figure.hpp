#pragma once
// A figure: a named, widget-free painter of a Result (docs/architecture.md, "Layers"). The
// screen, PNG/SVG/PDF export, the clipboard and `qkv-studio figure` all call the same paint
// function, so an exported figure is what the user saw, without on-screen marks.
//
// Every figure follows the publication rules: axis titles that say what
// the axes are ("queries: target sentence", "keys and values: source sentence"), a colour bar
// with its quantity and range, a title with the mode and shapes; no selection or hover marks
// unless options.showSelection; heatmaps drawn as one image (no seams in SVG/PDF); readable
// ticks (2,048 or 22.5k, never 2.25e+04); full legend names; a layout that uses the page.

#include <QColor>
#include <QFont>
#include <QRect>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"

class QPainter;

namespace qkv {
struct ModelOverview;
}

namespace qkv::ui {

// The font of exported and headless figures: DejaVu Sans (installed with the app's
// dependencies; Qt falls back to its sans-serif default without it), 10 pt at 96 dpi.
QFont figureFont();

// What a figure may depend on besides the Result: the selection and the view options the user
// chose (the same ones a session stores).
struct FigureOptions {
    Index head = 0;  // 0-based here
    Index query = 0;
    Index key = 0;
    Index queryEnd = 0;  // queries [query, queryEnd) selected together (a span); 0: `query` alone
    qkv::ViewOptions view;       // colormap, colour range, what the heads grid shows, zoom
    bool showSelection = false;  // draw the selected head/cell marks (off for publication)
    QStringList headTitles;      // "Head 1 · same meaning" per head; empty: "Head i"
    QColor background = Qt::white;
    QColor text = Qt::black;
    QFont font = figureFont();  // the base font: figureFont() for files, the app's on screen
    // View state that sessions do not store but an export from the app keeps:
    Index keyValueHeads = 0;  // the Costs tab's g (key/value heads); 0: g = h
    QRect productWindow;      // the factor product's zoomed block of W_i (x: columns, y:
                              // rows); null: all of W_i
    bool valueWeighted = false;  // the Model tab's Show: value-weighted norms, not attention weights
    Index rolloutStop = -1;         // the rollout's last layer, an index into rolloutLayers; -1: the last
    Index predictionPosition = -1;  // the predictions' position; -1 (or one not predicted at): the default
};

// The on-screen selection's colour (a head, a query, a key, a cell).
inline const QColor kSelectionColor{0xff, 0x8c, 0x00};
// The colour a figure marks what it is about (its head, its query): the selection's colour on
// screen; in an export, which shows no selection, the text's.
inline QColor emphasisColor(const FigureOptions& options)
{
    return options.showSelection ? kSelectionColor : options.text;
}

struct FigureInput {
    std::shared_ptr<const qkv::Result> result;  // never null when paint is called
    std::shared_ptr<const qkv::Result> pinned;  // the compare figures' other result, or null
    // The whole model on the result's sentences (the Model and Predictions figures), or null.
    std::shared_ptr<const qkv::ModelOverview> overview;
    FigureOptions options;
};

struct Figure {
    QString name;        // stable id used by `qkv-studio figure --figure NAME`: "heads", "spectrum", ...
    QString title;       // for menus: "Heads grid"
    QString view;        // its view's id (ResultView::id(), the session's view.tab): HeadsView::kId
    QSizeF defaultSize;  // logical pixels (1/96 inch) when the user asks for none
    // The smallest size the layout is made for; a smaller figure is laid out at this size and
    // scaled down to fit (paintFigure), so nothing ever overlaps. Empty: no minimum.
    QSizeF minimumSize;
    // Whether this figure can be drawn for `input` (e.g. compare needs a pinned result of the
    // same shape); an empty string when it can, else why not (shown to the user).
    // Null: always available.
    std::function<QString(const FigureInput&)> unavailable;
    // Draws the figure inside `rect` (logical pixels) with the painter's font, on a background
    // the caller has filled with options.background (paintFigure in figure_render.hpp does both).
    std::function<void(QPainter&, const QRectF&, const FigureInput&)> paint;
    // The size when the user asks for none, for this input (a grid as tall as its rows need);
    // null, or an empty size: defaultSize.
    std::function<QSizeF(const FigureInput&)> sizeForInput = {};
    // Whether it draws a long layer's result (Result::streamed(): each head's map pooled, not
    // held). One that does not is unavailable for it, saying why (longLayerNote).
    bool drawsLongLayers = false;
    // What it says for a long layer it does not draw; null: longLayerNote (a figure of full maps).
    std::function<QString(const qkv::Result&)> longLayerText = {};

    // "No result yet." without a result, longLayerNote for a long layer it does not draw, else
    // unavailable(input) ("" when the figure can be drawn).
    QString whyUnavailable(const FigureInput& input) const;
    // sizeForInput(input) if it gives one, else defaultSize.
    QSizeF defaultSizeFor(const FigureInput& input) const;
};

// Why a figure cannot be drawn for `input`: "No result yet." without a result, else "".
QString whyNoResult(const FigureInput& input);
// The same, and also when the selected head (options.head) is outside the result.
QString whyNoSelectedHead(const FigureInput& input);
// A figure of the selected head: unavailable while whyNoSelectedHead says so.
Figure perHeadFigure(QString name, QString title, QString view, QSizeF defaultSize,
                     std::function<void(QPainter&, const QRectF&, const FigureInput&)> paint);

}  // namespace qkv::ui
