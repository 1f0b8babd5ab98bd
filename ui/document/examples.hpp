#pragma once
// The example sessions shipped with the app (resources/examples/, made by make_examples.sh,
// installed as data files):
// File > Examples opens one as a new document, the Scenarios menu applies one to the current
// document as one undo step, and the first start opens the translation example.

#include <QString>

#include <vector>

#include "core/common/expected.hpp"
#include "core/session/session.hpp"

namespace qkv::ui {

struct Example {
    QString id;           // "translation"
    QString title;        // menu text: "Translation Alignment"
    QString fileName;     // "translation.qkv.json", also the document's name when opened
    QString description;  // status tip: what its heads do
};

// In menu order.
const std::vector<Example>& examples();
// The example the app opens on when it has no last session.
const Example& firstStartExample();
// The example's session, read from the data folder's examples/ (core/io/data_directory.hpp;
// they are small: read on the GUI thread). Fails with a message that names the folder.
qkv::Expected<qkv::Session> readExample(const Example& example);

}  // namespace qkv::ui
