// Everything public in one include.
#pragma once

#include "onemodel/ctc.h"
#include "onemodel/error.h"
#include "onemodel/format.h"
#include "onemodel/hash.h"
#include "onemodel/model.h"
#include "onemodel/packed.h"
#include "onemodel/session.h"
#include "onemodel/tensor.h"
