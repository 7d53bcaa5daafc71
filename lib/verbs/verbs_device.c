/* placeholder: replaced by the lib/verbs implementation */
#include "pv_verbs_driver.h"
