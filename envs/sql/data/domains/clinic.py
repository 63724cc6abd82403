"""``clinic``: doctors and specialties, patients, appointments, diagnoses and prescriptions."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta

from ..common import CITIES, insert_rows, iso_date, maybe, person_name, phone, random_date
from ..templates import t

DB_ID = "clinic"

SCHEMA = """
CREATE TABLE specialties (
    specialty_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE doctors (
    doctor_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    specialty_id INTEGER NOT NULL REFERENCES specialties (specialty_id),
    license_no TEXT NOT NULL,
    hire_date TEXT NOT NULL,
    consultation_fee REAL NOT NULL
);
CREATE TABLE patients (
    patient_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    birth_date TEXT NOT NULL,
    sex TEXT NOT NULL,
    city TEXT NOT NULL,
    insurance_provider TEXT,
    phone TEXT
);
CREATE TABLE appointments (
    appointment_id INTEGER PRIMARY KEY,
    patient_id INTEGER NOT NULL REFERENCES patients (patient_id),
    doctor_id INTEGER NOT NULL REFERENCES doctors (doctor_id),
    appointment_date TEXT NOT NULL,
    appointment_time TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE diagnoses (
    diagnosis_id INTEGER PRIMARY KEY,
    appointment_id INTEGER NOT NULL REFERENCES appointments (appointment_id),
    icd_code TEXT NOT NULL,
    description TEXT NOT NULL,
    severity TEXT NOT NULL
);
CREATE TABLE medications (
    medication_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    unit_price REAL NOT NULL
);
CREATE TABLE prescriptions (
    prescription_id INTEGER PRIMARY KEY,
    appointment_id INTEGER NOT NULL REFERENCES appointments (appointment_id),
    medication_id INTEGER NOT NULL REFERENCES medications (medication_id),
    dosage TEXT NOT NULL,
    days INTEGER NOT NULL,
    quantity INTEGER NOT NULL
);
"""

_SPECIALTIES = ("General Practice", "Cardiology", "Dermatology", "Pediatrics", "Orthopedics",
                "Neurology", "Psychiatry", "Endocrinology")
_CONDITIONS = (  # icd, description, specialty index, reason, medications (indexes)
    ("J06.9", "Acute upper respiratory infection", 0, "cough", (0, 1, 7)),
    ("I10", "Essential hypertension", 1, "high blood pressure", (2, 3)),
    ("E11.9", "Type 2 diabetes", 7, "blood sugar check", (4,)),
    ("M54.5", "Low back pain", 4, "back pain", (6, 14)),
    ("J45.9", "Asthma", 0, "shortness of breath", (9,)),
    ("F41.1", "Generalized anxiety disorder", 6, "anxiety", (10,)),
    ("K21.9", "Gastro-esophageal reflux", 0, "heartburn", (8,)),
    ("L20.9", "Atopic dermatitis", 2, "skin rash", (12, 11)),
    ("G43.9", "Migraine", 5, "headache", (13, 7)),
    ("E78.5", "Hyperlipidemia", 1, "cholesterol check", (5,)),
    ("S93.4", "Ankle sprain", 4, "ankle injury", (6, 14)),
    ("H66.9", "Otitis media", 3, "ear pain", (0,)),
    ("B34.9", "Viral infection", 3, "fever", (7,)),
    ("F32.9", "Depressive episode", 6, "low mood", (10, 15)),
)
_MEDICATIONS = (
    ("Amoxicillin", "antibiotic", 0.45), ("Azithromycin", "antibiotic", 1.9),
    ("Lisinopril", "antihypertensive", 0.3), ("Amlodipine", "antihypertensive", 0.25),
    ("Metformin", "antidiabetic", 0.2), ("Atorvastatin", "statin", 0.35),
    ("Ibuprofen", "analgesic", 0.08), ("Paracetamol", "analgesic", 0.05),
    ("Omeprazole", "antacid", 0.4), ("Salbutamol", "bronchodilator", 2.5),
    ("Sertraline", "antidepressant", 0.6), ("Cetirizine", "antihistamine", 0.15),
    ("Hydrocortisone", "corticosteroid", 1.2), ("Sumatriptan", "antimigraine", 3.1),
    ("Naproxen", "analgesic", 0.12), ("Fluoxetine", "antidepressant", 0.55),
    ("Warfarin", "anticoagulant", 0.5), ("Insulin Glargine", "antidiabetic", 9.75),
)
_INSURERS = ("MediCare Plus", "HealthFirst", "Unity Health", "CareShield", "Northstar Mutual")


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    insert_rows(conn, "specialties", [(i + 1, s) for i, s in enumerate(_SPECIALTIES)])
    doctors = []
    for did in range(1, 31):
        first, last = person_name(rng)
        spec = did % 8 + 1 if did <= 16 else rng.choices(range(1, 9), [6, 2, 1, 3, 2, 1, 2, 1])[0]
        fee = round(rng.choice([60, 75, 80, 90, 100, 120, 150, 180]) * rng.uniform(0.9, 1.25), 2)
        doctors.append((did, first, last, spec, f"LIC-{rng.randint(10000, 99999)}",
                        iso_date(random_date(rng, date(1998, 1, 1), date(2023, 12, 31))), fee))
    insert_rows(conn, "doctors", doctors)
    patients = []
    for pid in range(1, 401):
        first, last = person_name(rng)
        patients.append((pid, first, last,
                         iso_date(random_date(rng, date(1935, 1, 1), date(2022, 12, 31))),
                         rng.choice("FM"), rng.choices([c for c, _ in CITIES[:6]],
                                                       [9, 5, 4, 3, 2, 1])[0],
                         maybe(rng, rng.choice(_INSURERS), 0.18), maybe(rng, phone(rng), 0.1)))
    insert_rows(conn, "patients", patients)
    appointments: list[tuple] = []
    diagnoses: list[tuple] = []
    prescriptions: list[tuple] = []
    for aid in range(1, 1601):
        patient = rng.randint(1, 380)  # the last 20 patients are registered but never seen
        cond = rng.choices(_CONDITIONS, weights=[9, 6, 4, 5, 3, 3, 3, 3, 3, 3, 2, 2, 3, 2])[0]
        staff = [d for d in doctors if d[3] == cond[2] + 1] or doctors
        doctor = rng.choice(staff if rng.random() < 0.8 else [d for d in doctors if d[3] == 1])
        day = date(2022, 1, 3) + timedelta(days=rng.randint(0, 960))
        status = ("scheduled" if day > date(2024, 6, 30)
                  else rng.choices(["completed", "cancelled", "no-show"], [85, 10, 5])[0])
        appointments.append((aid, patient, doctor[0], iso_date(day),
                             f"{rng.randint(8, 17):02d}:{rng.choice(['00', '20', '40'])}",
                             status, cond[3]))
        if status != "completed":
            continue
        if rng.random() < 0.85:
            severity = rng.choices(["mild", "moderate", "severe"], [6, 3, 1])[0]
            diagnoses.append((len(diagnoses) + 1, aid, cond[0], cond[1], severity))
        for med in cond[4]:
            if rng.random() < 0.7:
                days = rng.choice([5, 7, 10, 14, 30, 90])
                per_day = rng.choice([1, 1, 2, 3])
                prescriptions.append((len(prescriptions) + 1, aid, med + 1,
                                      f"{per_day}x daily", days, days * per_day))
    insert_rows(conn, "appointments", appointments)
    insert_rows(conn, "diagnoses", diagnoses)
    insert_rows(conn, "medications", [(i + 1, *m) for i, m in enumerate(_MEDICATIONS)])
    insert_rows(conn, "prescriptions", prescriptions)


TEMPLATES = [
    t("easy", "How many patients live in {city}?",
      "SELECT COUNT(*) FROM patients WHERE city = {city}", city="SELECT city FROM patients"),
    t("easy", "What is the consultation fee of the doctor with license number {lic}?",
      "SELECT consultation_fee FROM doctors WHERE license_no = {lic}", count=2,
      lic="SELECT license_no FROM doctors"),
    t("easy", "How many appointments have the status '{status}'?",
      "SELECT COUNT(*) FROM appointments WHERE status = {status}", count=2,
      status="SELECT status FROM appointments"),
    t("easy", "List the names of the medications in the '{cat}' category.",
      "SELECT name FROM medications WHERE category = {cat}", count=2,
      cat="SELECT category FROM medications GROUP BY category HAVING COUNT(*) > 1"),
    t("easy", "How many patients have no insurance provider?",
      "SELECT COUNT(*) FROM patients WHERE insurance_provider IS NULL"),
    t("easy", "List the first and last names of the female patients born after {day}.",
      "SELECT first_name, last_name FROM patients WHERE sex = 'F' AND birth_date > {day}",
      count=2, day="SELECT '2010-01-01' UNION SELECT '2015-06-30' UNION SELECT '2018-01-01'"),
    t("easy", "What is the unit price of the most expensive medication?",
      "SELECT MAX(unit_price) FROM medications"),
    t("easy", "How many appointments are booked on {day}?",
      "SELECT COUNT(*) FROM appointments WHERE appointment_date = {day}", count=2,
      day="SELECT appointment_date FROM appointments"),
    t("easy", "List the distinct descriptions of the diagnoses rated 'severe'.",
      "SELECT DISTINCT description FROM diagnoses WHERE severity = 'severe'"),
    t("easy", "For each insurance provider, how many patients does it cover?",
      "SELECT insurance_provider, COUNT(*) FROM patients WHERE insurance_provider IS NOT NULL "
      "GROUP BY insurance_provider"),
    t("easy", "What is the average consultation fee of the doctors, rounded to 2 decimals?",
      "SELECT ROUND(AVG(consultation_fee), 2) FROM doctors"),
    t("easy", "Which doctors were hired before {year}? Give their first and last names.",
      "SELECT first_name, last_name FROM doctors WHERE hire_date < {year}", count=2,
      year="SELECT '2005-01-01' UNION SELECT '2010-01-01' UNION SELECT '2015-01-01'"),
    t("easy", "List the distinct reasons given for appointments, in alphabetical order.",
      "SELECT DISTINCT reason FROM appointments ORDER BY reason"),
    t("medium", "How many completed appointments does the doctor with license number {lic} "
      "have?",
      "SELECT COUNT(*) FROM appointments a JOIN doctors d ON d.doctor_id = a.doctor_id "
      "WHERE d.license_no = {lic} AND a.status = 'completed'", count=2,
      lic="SELECT license_no FROM doctors"),
    t("medium", "For each specialty, give its name and the number of doctors practising it.",
      "SELECT s.name, COUNT(*) FROM specialties s JOIN doctors d "
      "ON d.specialty_id = s.specialty_id GROUP BY s.specialty_id, s.name"),
    t("medium", "List the distinct names of the medications prescribed to the patient with id "
      "{pid}.",
      "SELECT DISTINCT m.name FROM medications m JOIN prescriptions p "
      "ON p.medication_id = m.medication_id JOIN appointments a "
      "ON a.appointment_id = p.appointment_id WHERE a.patient_id = {pid}", count=2,
      pid="SELECT a.patient_id FROM appointments a JOIN prescriptions p "
      "ON p.appointment_id = a.appointment_id GROUP BY a.patient_id HAVING COUNT(*) > 3"),
    t("medium", "Which doctors have more than {n} appointments? Give first name, last name and "
      "the number of appointments.",
      "SELECT d.first_name, d.last_name, COUNT(*) FROM doctors d JOIN appointments a "
      "ON a.doctor_id = d.doctor_id GROUP BY d.doctor_id, d.first_name, d.last_name "
      "HAVING COUNT(*) > {n}", count=2, n="SELECT 60 UNION SELECT 80 UNION SELECT 100"),
    t("medium", "What is the total cost (quantity times unit price) of the medications "
      "prescribed by {spec} doctors, rounded to 2 decimals?",
      "SELECT ROUND(SUM(p.quantity * m.unit_price), 2) FROM prescriptions p JOIN medications m "
      "ON m.medication_id = p.medication_id JOIN appointments a "
      "ON a.appointment_id = p.appointment_id JOIN doctors d ON d.doctor_id = a.doctor_id "
      "JOIN specialties s ON s.specialty_id = d.specialty_id WHERE s.name = {spec}", count=2,
      spec="SELECT name FROM specialties"),
    t("medium", "For each diagnosis description, how many distinct patients received it?",
      "SELECT dg.description, COUNT(DISTINCT a.patient_id) FROM diagnoses dg JOIN appointments a "
      "ON a.appointment_id = dg.appointment_id GROUP BY dg.description"),
    t("medium", "List the distinct first and last names of the patients diagnosed with "
      "'{desc}'.",
      "SELECT DISTINCT p.first_name, p.last_name FROM patients p JOIN appointments a "
      "ON a.patient_id = p.patient_id JOIN diagnoses dg ON dg.appointment_id = a.appointment_id "
      "WHERE dg.description = {desc}", count=2,
      desc="SELECT description FROM diagnoses GROUP BY description HAVING COUNT(*) < 60"),
    t("medium", "For each medication category, what is the average prescription length in "
      "days, rounded to 1 decimal?",
      "SELECT m.category, ROUND(AVG(p.days), 1) FROM prescriptions p JOIN medications m "
      "ON m.medication_id = p.medication_id GROUP BY m.category"),
    t("medium", "Which patients from {city} have seen a doctor whose specialty is {spec}? "
      "Give their distinct first and last names.",
      "SELECT DISTINCT p.first_name, p.last_name FROM patients p JOIN appointments a "
      "ON a.patient_id = p.patient_id JOIN doctors d ON d.doctor_id = a.doctor_id "
      "JOIN specialties s ON s.specialty_id = d.specialty_id WHERE p.city = {city} "
      "AND s.name = {spec}", count=2,
      city="SELECT city FROM patients", spec="SELECT name FROM specialties WHERE specialty_id > 1"),
    t("medium", "For each patient city, how many appointments were made by patients living "
      "there?",
      "SELECT p.city, COUNT(*) FROM patients p JOIN appointments a ON a.patient_id = p.patient_id "
      "GROUP BY p.city"),
    t("medium", "Which specialties have an average consultation fee above {fee}? Give the "
      "specialty name and the average fee rounded to 2 decimals.",
      "SELECT s.name, ROUND(AVG(d.consultation_fee), 2) FROM specialties s JOIN doctors d "
      "ON d.specialty_id = s.specialty_id GROUP BY s.specialty_id, s.name "
      "HAVING AVG(d.consultation_fee) > {fee}", count=2,
      fee="SELECT 90 UNION SELECT 100 UNION SELECT 110"),
    t("hard", "How many registered patients have never had an appointment?",
      "SELECT COUNT(*) FROM patients WHERE patient_id NOT IN "
      "(SELECT patient_id FROM appointments)"),
    t("hard", "Which doctors charge more than the average consultation fee of their specialty? "
      "Give their first and last names.",
      "SELECT d.first_name, d.last_name FROM doctors d WHERE d.consultation_fee > "
      "(SELECT AVG(d2.consultation_fee) FROM doctors d2 WHERE d2.specialty_id = d.specialty_id)"),
    t("hard", "For each specialty, which medication did its doctors prescribe most often? Give "
      "the specialty name, the medication name and the number of prescriptions (include ties).",
      "SELECT specialty, medication, n FROM (SELECT s.name AS specialty, m.name AS medication, "
      "COUNT(*) AS n, RANK() OVER (PARTITION BY s.specialty_id ORDER BY COUNT(*) DESC) AS rk "
      "FROM prescriptions p JOIN medications m ON m.medication_id = p.medication_id "
      "JOIN appointments a ON a.appointment_id = p.appointment_id JOIN doctors d "
      "ON d.doctor_id = a.doctor_id JOIN specialties s ON s.specialty_id = d.specialty_id "
      "GROUP BY s.specialty_id, s.name, m.medication_id, m.name) x WHERE rk = 1"),
    t("hard", "Give the ids of the patients diagnosed with both '{d1}' and '{d2}'.",
      "SELECT a.patient_id FROM appointments a JOIN diagnoses dg "
      "ON dg.appointment_id = a.appointment_id WHERE dg.description = {d1} INTERSECT "
      "SELECT a.patient_id FROM appointments a JOIN diagnoses dg "
      "ON dg.appointment_id = a.appointment_id WHERE dg.description = {d2}", count=2,
      d1="SELECT description FROM diagnoses",
      d2="SELECT description FROM diagnoses WHERE description > {d1}"),
    t("hard", "For each month of 2023 (YYYY-MM), give the number of completed appointments and "
      "the running total since January, ordered by month.",
      "WITH monthly AS (SELECT substr(appointment_date, 1, 7) AS month, COUNT(*) AS n "
      "FROM appointments WHERE status = 'completed' AND substr(appointment_date, 1, 4) = '2023' "
      "GROUP BY substr(appointment_date, 1, 7)) SELECT month, n, SUM(n) OVER (ORDER BY month) "
      "FROM monthly ORDER BY month"),
    t("hard", "Which patients have seen more distinct doctors than the average patient with "
      "appointments? Give the patient id and the number of distinct doctors.",
      "WITH seen AS (SELECT patient_id, COUNT(DISTINCT doctor_id) AS n FROM appointments "
      "GROUP BY patient_id) SELECT patient_id, n FROM seen WHERE n > (SELECT AVG(n) FROM seen)"),
    t("hard", "Which medications have never been prescribed? Give their names.",
      "SELECT name FROM medications EXCEPT SELECT m.name FROM medications m "
      "JOIN prescriptions p ON p.medication_id = m.medication_id"),
    t("hard", "Give the ids of the patients who missed an appointment (status 'no-show') but "
      "never completed one.",
      "SELECT patient_id FROM appointments WHERE status = 'no-show' EXCEPT "
      "SELECT patient_id FROM appointments WHERE status = 'completed'"),
    t("hard", "Rank the doctors within their specialty by number of completed appointments, "
      "most first: give the specialty name, the doctor's license number, the count and the "
      "rank (equal counts share a rank).",
      "SELECT s.name, d.license_no, COUNT(*), RANK() OVER (PARTITION BY s.specialty_id "
      "ORDER BY COUNT(*) DESC) FROM doctors d JOIN specialties s "
      "ON s.specialty_id = d.specialty_id JOIN appointments a ON a.doctor_id = d.doctor_id "
      "WHERE a.status = 'completed' GROUP BY s.specialty_id, s.name, d.doctor_id, d.license_no"),
    t("hard", "Which doctors have a no-show rate above the clinic-wide no-show rate? Give the "
      "license number and their no-show rate in percent, rounded to 1 decimal.",
      "WITH rates AS (SELECT doctor_id, 100.0 * SUM(CASE WHEN status = 'no-show' THEN 1 ELSE 0 "
      "END) / COUNT(*) AS rate FROM appointments GROUP BY doctor_id) SELECT d.license_no, "
      "ROUND(r.rate, 1) FROM rates r JOIN doctors d ON d.doctor_id = r.doctor_id WHERE r.rate > "
      "(SELECT 100.0 * SUM(CASE WHEN status = 'no-show' THEN 1 ELSE 0 END) / COUNT(*) "
      "FROM appointments)"),
]
