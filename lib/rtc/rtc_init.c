/* placeholder: replaced by the lib/rtc implementation */
#include "pv_rtc.h"
