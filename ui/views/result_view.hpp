#pragma once
// The one interface of the views beside the controls (docs/architecture.md, "Layers"). A view:
//   - takes an immutable Result (setResult) and follows the shared HeadSelection (head, query
//     row, key column), which it may also set (e.g. its own head box);
//   - implements refresh(changes), and the base decides when to call it: at once while the
//     view is shown, else on its next show. A hidden view (a tab in the background) does no
//     work, it is only marked stale;
//   - states its id once (kId): the session's view.tab and the Figure::view of its figures;
//   - names the figures it can export (the figure registry paints them);
//   - saves and restores its own options into the session's view options, and may offer
//     entries for the window's View menu, so that nothing outside a view knows its type;
//   - runs heavy work off the GUI thread through a LatestTask (latest_task.hpp) started from
//     refresh().
// ViewTabs holds views through this class only.
//
// A QWidget subclass rather than a mixin: the base must see show events and receive the
// selection's signals, which needs a QWidget and a QObject; a mixin would need an event filter
// and a helper QObject for that. A view that is really a QChartView or QScrollArea contains
// one instead.

#include <QList>
#include <QStringList>
#include <QWidget>

#include <memory>

#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"

class QAction;
class QLabel;

namespace qkv::ui {

class HeadSelection;
struct FigureOptions;

class ResultView : public QWidget {
    Q_OBJECT
public:
    // What changed since the view last refreshed.
    enum class Change {
        Result = 0x1,   // a new Result
        Head = 0x2,     // the selected head
        Cell = 0x4,     // the selected (query row, key column)
        Options = 0x8,  // the view's own settings (colormap, score kind, ...)
    };
    Q_DECLARE_FLAGS(Changes, Change)
    Q_FLAG(Changes)

    // `selection` is shared with the other views; null gives the view its own (a view on its
    // own, e.g. in a test). `follows`: the parts of the selection whose change is a Change
    // for this view (others are ignored).
    ResultView(HeadSelection* selection, Changes follows, QWidget* parent = nullptr);

    // The tab label, with its & mnemonic: one short word or two, so that every tab shows at the
    // smallest window (1000 x 700).
    virtual QString title() const = 0;
    // What the tab shows, in a sentence: its tool tip.
    virtual QString summary() const = 0;
    // The view's stable name, never translated: the tab a session names (view.tab) and the
    // Figure::view of its figures. Each view returns its own `static constexpr kId`, written
    // once; never derived from the class name, so that renaming a class keeps the files.
    virtual QString id() const = 0;

    // The view's own options, as the session keeps them: saveOptions writes the fields this
    // view shows (what it shows now), restoreOptions shows them, leaving a value it cannot
    // show (an unknown name) aside. Default: a view without options.
    virtual void saveOptions(qkv::ViewOptions& options) const;
    virtual void restoreOptions(const qkv::ViewOptions& options);
    // What an export from the app keeps of this view's state that sessions do not store (the
    // comparison's g, the factor product's zoom): written into a figure's options. Default: none.
    virtual void saveFigureOptions(FigureOptions& options) const;
    // Whether the view draws a long layer's result (Result::streamed(): each head's map pooled,
    // not held). One that does not is covered in place by a note (longLayerNote) while such a
    // result is set: refresh() is not called and it keeps what it drew; the next result it draws
    // refreshes it with every change meanwhile. Default: does not.
    virtual bool drawsLongLayers() const;
    // The note that covers the view for such a result: what the view would need and where the
    // layer can be seen instead. Default: longLayerNote (a view of full maps).
    virtual QString longLayerText(const qkv::Result& result) const;
    // The note covering the view, or null while none does.
    QLabel* longLayerCover() const { return cover_; }
    // Entries of the window's View menu that drive this view (its options, its zoom), owned
    // by the view; a separator may be among them. Default: none.
    virtual QList<QAction*> viewMenuActions() const;

    void setResult(std::shared_ptr<const qkv::Result> result);
    const std::shared_ptr<const qkv::Result>& result() const { return result_; }
    HeadSelection* selection() const { return selection_; }

    // Some change has not reached refresh() yet (the view is hidden, or an update is held).
    bool isStale() const { return stale_ != Changes(); }
    // Refreshes now if stale, shown or not: for export or a test reading a hidden view.
    void ensureCurrent();
    // Hold refreshes until the matching endUpdate(), which then refreshes once for every change
    // meanwhile (a new result and the selection clamp it causes). Nests.
    void beginUpdate();
    void endUpdate();

signals:
    // refresh() ran for `changes`.
    void refreshed(qkv::ui::ResultView::Changes changes);
    // One of the view's own options changed (by the user, a menu, a setter or restoreOptions):
    // saveOptions() has the new value.
    void optionsChanged();

protected:
    // Brings what the view shows up to date with result() and selection() for `changes`; the
    // result may be null (no result yet). Never called while the view is hidden.
    virtual void refresh(Changes changes) = 0;
    // The view's own setting changed: refresh now, or when shown.
    void invalidate(Changes changes = Change::Options);

    bool event(QEvent* event) override;

private:
    // Shown, or the page its not-yet-shown window will show; a view that is its own window
    // counts as shown. Hidden: the view or a container up to its window is hidden.
    bool isOnScreenOrDue() const;
    void refreshIfDue();
    void refreshNow();
    // Covers the view for a long layer it does not draw (true), or uncovers it. Covered, it
    // keeps the changes for the next result it draws.
    bool coverForLongLayer();
    void placeCover();

    HeadSelection* selection_;
    std::shared_ptr<const qkv::Result> result_;
    Changes stale_;
    Changes covered_;  // changes that came while covered
    QLabel* cover_ = nullptr;
    int held_ = 0;
    bool refreshing_ = false;
};

Q_DECLARE_OPERATORS_FOR_FLAGS(ResultView::Changes)

}  // namespace qkv::ui
