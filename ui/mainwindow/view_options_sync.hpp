#pragma once
// Keeps the document's view options (qkv::ViewOptions: the tab, the selected head and cell, and
// each view's own options such as the heads grid's colormap) and the widgets in step. A change
// updates the document (not an undo step, but it marks the document modified); a new
// document's options are applied to the widgets. Every view saves and restores its own options
// (ResultView::saveOptions, restoreOptions), so this class knows none of the views' types. A
// value no view can show (a colormap name this version does not know) stays as the file had it
// until the view it belongs to changes an option; the document then records what is shown.

#include <QObject>
#include <QString>

#include <functional>

#include "core/session/session.hpp"

namespace qkv {
struct Result;
}

namespace qkv::ui {

class Document;
class HeadSelection;
class ResultView;
class ViewTabs;

class ViewOptionsSync : public QObject {
    Q_OBJECT
public:
    ViewOptionsSync(Document* document, HeadSelection* selection, ViewTabs* tabs, QObject* parent = nullptr);

    // Sets the widgets to `view` (what a new document does).
    void apply(const qkv::ViewOptions& view);

private:
    void update(const std::function<void(qkv::ViewOptions&)>& change);
    // The selection (head, cell) of `view`, kept inside `inside` when there is one.
    void select(const qkv::ViewOptions& view, const qkv::Result* inside);

    Document* document_;
    HeadSelection* selection_;
    ViewTabs* tabs_;
    bool applying_ = false;
    // Sets the new document's selection when its result is shown (apply()).
    QMetaObject::Connection pendingSelection_;
};

}  // namespace qkv::ui
