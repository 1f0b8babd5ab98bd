#pragma once
// How a control changes the configuration: a copy of the document's Config, changed, handed to
// Document::edit() as one undo step (merged with the previous edit of the same key).

#include <QString>

#include "ui/document/document.hpp"

namespace qkv::ui {

template <class Change>
void editConfig(Document* document, const QString& description, EditKey key, Change change)
{
    qkv::Config config = document->config();
    change(config);
    document->edit(config, description, key);
}

}  // namespace qkv::ui
