#include "metrology/experiment_result.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace rastro::metrology {
namespace {

TEST(ExperimentResultCsv, ParsesAnyColumnOrderAndEmptyUncertainty) {
  auto r = parse_results_csv(
      "# comment\n"
      "measured,reference,reference_u,instrument,type,level,background,replicate,extra\n"
      "10.5,10,0.1,strace,RR,1,0,1,x\n"
      "\n"
      "\"9.5\",10,,\"strace\",RR,1,0,2,y\n",
      "r.csv");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].instrument, "strace");
  EXPECT_DOUBLE_EQ(r[0].measured, 10.5);
  EXPECT_DOUBLE_EQ(r[0].reference_u, 0.1);
  EXPECT_EQ(r[1].reference_u, 0);
  EXPECT_EQ(r[1].replicate, 2);
  EXPECT_EQ(r[1].line, 5u);
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_results_csv(text, "r.csv");
    ADD_FAILURE() << "no error for: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ExperimentResultCsv, EmptyReferenceIsUnknownAndDecompositionColumnsAreOptional) {
  const std::string h = "instrument,type,level,background,replicate,measured,reference,reference_u";
  auto r = parse_results_csv(h + ",application,recording\ns,SR,1,0,1,10,,,8,1.5\ns,SR,1,0,2,10,9,0.1,,\n", "r.csv");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].reference.has_value());
  EXPECT_DOUBLE_EQ(*r[0].application, 8);
  EXPECT_DOUBLE_EQ(*r[0].recording, 1.5);
  EXPECT_DOUBLE_EQ(*r[1].reference, 9);
  EXPECT_FALSE(r[1].application.has_value());
  EXPECT_FALSE(r[1].recording.has_value());
  auto plain = parse_results_csv(h + "\ns,SR,1,0,1,10,9,0.1\n", "r.csv");
  EXPECT_FALSE(plain[0].application.has_value());
}

TEST(ExperimentResultCsv, ClockUncertaintyOfCrossHostIntervalsIsAnOptionalColumn) {
  const std::string h = "instrument,type,level,background,replicate,measured,reference,reference_u,clock_u";
  auto r = parse_results_csv(h + "\nmpi,RING,4,0,1,50,48,0.5,2.5\nmpi,RING,4,0,2,51,48,0.5,\n", "r.csv");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0].clock_u, 2.5);
  EXPECT_EQ(r[1].clock_u, 0);
  expect_error(h + "\nmpi,RING,4,0,1,50,48,0.5,-1\n", "r.csv:2: clock_u is negative");
}

TEST(ExperimentResultCsv, BadInputNamesFileAndLine) {
  const std::string h = "instrument,type,level,background,replicate,measured,reference,reference_u\n";
  expect_error("instrument,type\n", "r.csv:1: header lacks column 'level'");
  expect_error(h + "s,RR,1,0,1,abc,10,\n", "r.csv:2: column 'measured' is not a number");
  expect_error(h + "s,RR,1,0,1,nan,10,\n", "r.csv:2: column 'measured' is not finite");
  expect_error(h + "s,RR,1,0,1,1,10,-1\n", "reference_u is negative");
  expect_error(h + "s,RR,1,0,1,1,10,\ns,RR,1,0,1,2,10,\n", "r.csv:3: duplicate replicate 1");
  expect_error(h + "s,RR,1\n", "r.csv:2: 3 fields");
  expect_error("", "empty results file");
  expect_error(h + "s,RR,1,0,1.5,1,10,\n", "replicate must be an integer");
  expect_error("instrument,type,level,background,replicate,measured,reference,reference_u,recording\n"
               "s,RR,1,0,1,1,10,,0.5\n",
               "r.csv:2: 'recording' needs the 'application' timing");
}

}  // namespace
}  // namespace rastro::metrology
