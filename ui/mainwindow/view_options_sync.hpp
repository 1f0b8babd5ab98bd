#pragma once
// Keeps the document's view options (the tab, the selected head and cell, what the heads grid
// shows, its colormap, average and zoom: qkv::ViewOptions) and the widgets in step. A widget
// change updates its one field in the document (not an undo step, but it marks the document
// modified); a new document's options are applied to the widgets. Fields a widget cannot show
// (an unknown colormap name, the colour range, which the heads grid does not offer yet) stay
// as the file had them.

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
