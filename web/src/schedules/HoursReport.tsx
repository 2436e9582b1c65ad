import { useState } from 'react';
import { Field } from '../ui/Field';
import { personName, useHoursReport, type Member } from './api';
import { addDays, isDate, startOfDay } from './zoned';

const hours = (n: number) => n.toFixed(1);

/** On-call hours per person over local dates of the schedule's zone (the viewed two weeks to start with). */
export function HoursReport({ scheduleId, timezone, from, members }: { scheduleId: number; timezone: string; from: string; members: readonly Member[] | undefined }) {
  const [first, setFirst] = useState(from);
  const [last, setLast] = useState(addDays(from, 13));
  const valid = isDate(first) && isDate(last) && last >= first;
  const range = valid ? { from: new Date(startOfDay(first, timezone)).toISOString(), to: new Date(startOfDay(addDays(last, 1), timezone)).toISOString() } : { from: '', to: '' };
  const report = useHoursReport(scheduleId, range, valid);
  return (
    <section aria-labelledby="hours-title">
      <h2 id="hours-title">Hours report</h2>
      <div className="inline-form">
        <Field label="First day">{(aria) => <input {...aria} type="date" name="reportFrom" value={first} onChange={(e) => setFirst(e.target.value)} />}</Field>
        <Field label="Last day">{(aria) => <input {...aria} type="date" name="reportTo" value={last} onChange={(e) => setLast(e.target.value)} />}</Field>
      </div>
      {!valid ? <p className="field-error">Choose a first day on or before the last day (at most 93 days).</p> : null}
      {report.isError ? (
        <p className="form-error" role="alert">
          The report could not be made: {report.error.message}
        </p>
      ) : null}
      {report.data ? (
        report.data.items.length === 0 ? (
          <p className="muted">Nobody was on call in these days.</p>
        ) : (
          <div className="table-wrap">
            <table className="hours-table">
              <caption className="visually-hidden">On-call hours per person, {timezone}</caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Shifts</th>
                  <th scope="col">Total hours</th>
                  <th scope="col">Weekdays</th>
                  <th scope="col">Weekends</th>
                  <th scope="col">Nights (22–07)</th>
                </tr>
              </thead>
              <tbody>
                {report.data.items.map((row) => (
                  <tr key={row.userId} data-user={row.userId}>
                    <th scope="row">{personName(members, row.userId)}</th>
                    <td>{row.shiftCount}</td>
                    <td data-total>{hours(row.totalHours)}</td>
                    <td>{hours(row.weekdayHours)}</td>
                    <td>{hours(row.weekendHours)}</td>
                    <td>{hours(row.nightHours)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </section>
  );
}
